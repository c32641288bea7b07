/**
 * The `rxslice` command line: `replay`, `inspect`, `stats`, `history` and `watch` (commander; progress bars with
 * cli-progress). Run `rxslice --help` or `rxslice <command> --help`.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Command, CommanderError, InvalidArgumentError } from 'commander';
import { isRxSliceError } from '../internal/errors';
import { InspectorListenError, startInspector, type Inspector } from '../devtools/inspector-server';
import { definitionsFor, DefinitionsError } from './definitions';
import { inputKind, refusal } from './input-kind';
import type { CliIO } from './progress';
import { replayCommand } from './replay-command';
import { formatStats, recordingStats } from './stats-command';
import { formatHistory, HistoryError, threadHistory } from './history-command';
import { LIVE_INSPECTOR_PORT, watchCommand, type WatchCommandHandle, type WatchCommandOptions } from './watch-command';

/** Options of {@link runCli}. */
export interface RunCliOptions {
  /** Transcripts `replay` reads when given no path (the demo passes the bundled ones). Default: none (a path is required). */
  readonly defaultTranscripts?: readonly string[];
  /** Arguments put before the user's (the demo runs `replay`). */
  readonly argvPrefix?: readonly string[];
  /** Called with the inspector once `inspect` listens (it keeps running until the process stops). */
  readonly onInspector?: (inspector: Inspector) => void;
  /** Called with the watch once `watch` has read the files present (it keeps running until closed). */
  readonly onWatch?: (watch: WatchCommandHandle) => void;
}

const port = (value: string): number => {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 65535) throw new InvalidArgumentError('a port is an integer from 0 to 65535');
  return n;
};

/**
 * The version of the installed rxslice: `version` of the package.json two folders up (from
 * `src/cli/main.ts` in a checkout and from `dist/cli/main.js` in an installed package alike).
 */
function packageVersion(): string {
  try {
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { name?: unknown; version?: unknown };
    if (pkg.name === 'rxslice' && typeof pkg.version === 'string') return pkg.version;
  } catch {
    // Not found or not readable: say so below rather than fail every command.
  }
  return 'unknown (package.json of rxslice not found)';
}

const positive = (value: string): number => {
  const n = Number(value);
  if (!Number.isInteger(n) || n <= 0) throw new InvalidArgumentError('a positive integer');
  return n;
};

const fraction = (value: string): number => {
  const n = Number(value);
  if (!(n > 0 && n <= 1)) throw new InvalidArgumentError('a number above 0 and at most 1 (0.25: a quarter)');
  return n;
};

/** Opens `url` in the default browser (xdg-open, open or start); failures are reported, not fatal. */
function openBrowser(url: string, io: CliIO): void {
  const [cmd, args] = process.platform === 'darwin' ? ['open', [url]] : process.platform === 'win32' ? ['cmd', ['/c', 'start', '', url]] : ['xdg-open', [url]];
  const child = spawn(cmd, args, { stdio: 'ignore', detached: true });
  child.on('error', () => io.stderr.write(`rxslice inspect: could not open a browser (${cmd}); open ${url} yourself\n`));
  child.unref();
}

/**
 * Runs the command line on `argv` (without the node and script paths) and resolves with the
 * exit code: 0 on success, 1 on bad input (a message on stderr), 2 on a usage error. `inspect`
 * resolves once its server listens and keeps serving.
 * @example
 * ```ts
 * process.exitCode = await runCli(['stats', 'run.jsonl'], { stdout: process.stdout, stderr: process.stderr, cwd: process.cwd() });
 * ```
 */
export async function runCli(argv: readonly string[], io: CliIO, options: RunCliOptions = {}): Promise<number> {
  let code = 0;
  const program = new Command('rxslice')
    .description('rxslice: replay agent transcripts, inspect and summarise flight recordings')
    .version(packageVersion(), '-V, --version', 'print the version of rxslice (-v too)')
    .exitOverride()
    .configureOutput({ writeOut: (s) => io.stdout.write(s), writeErr: (s) => io.stderr.write(s) })
    .showHelpAfterError();

  /** The absolute path of the recording `given`; `undefined` (the refusal on stderr, exit code 1) when it is something else. */
  const recordingOrRefuse = (command: string, given: string): string | undefined => {
    const file = path.resolve(io.cwd, given);
    const input = inputKind(file);
    if (input.kind === 'recording') return file;
    io.stderr.write(`${refusal(command, given, input, 'a flight recording (rxslice replay <transcript> --record <file>, or flightRecorder)')}\n`);
    code = 1;
    return undefined;
  };

  program
    .command('replay')
    .description('replay Claude Code transcripts (.jsonl files or directories of them) through a transcript session and print a report for each')
    .argument('[transcripts...]', 'transcript files or directories')
    .option('--store <dir>', 'keep each transcript session in <dir>; a second run replays only what is new')
    .option('--record <file>', 'write a flight recording of the replay (several transcripts: one session, one recording)')
    .option('--diagram', 'print the phase statechart as a Mermaid diagram')
    .action((paths: string[], opts: { store?: string; record?: string; diagram?: boolean }) => {
      const targets = paths.length > 0 ? paths : (options.defaultTranscripts ?? []);
      if (targets.length === 0) {
        io.stderr.write('rxslice replay: give at least one transcript file or directory (rxslice replay --help)\n');
        code = 2;
        return;
      }
      code = replayCommand(targets, opts, io);
    });

  program
    .command('inspect')
    .description('serve the inspector page for a flight recording (event list, state at any event, diffs, statecharts, timelines, charts)')
    .argument('<recording>', 'a flight recording (rxslice replay --record, or flightRecorder)')
    .option('--port <n>', 'port to listen on (0: any free port)', port, 4400)
    .option('--host <address>', 'interface to listen on', '127.0.0.1')
    .option('--allowed-host <name...>', 'host names the page may also be reached by (a proxy or tunnel name); others get 403 (DNS rebinding guard)')
    .option('--session <module>', 'a module exporting the recording\'s `slices` (and optionally `session` and `machines`)')
    .option('--open', 'open the page in the default browser')
    .action(async (given: string, opts: { port: number; host: string; allowedHost?: string[]; session?: string; open?: boolean }) => {
      const file = recordingOrRefuse('inspect', given);
      if (file === undefined) return;
      const definitions = await definitionsFor(file, opts.session, io.cwd);
      let inspector: Inspector;
      try {
        inspector = await startInspector({ file, definitions, port: opts.port, host: opts.host, ...(opts.allowedHost === undefined ? {} : { allowedHosts: opts.allowedHost }) });
      } catch (e) {
        if (!(e instanceof InspectorListenError)) throw e;
        io.stderr.write(`rxslice inspect: ${e.message}\n`);
        code = 1;
        return;
      }
      const s = inspector.model.recording;
      io.stdout.write(`rxslice inspect: ${s.size.toLocaleString('en-US')} events of ${given} at ${inspector.url}  (Ctrl-C stops)\n`);
      if (opts.open === true) openBrowser(inspector.url, io);
      options.onInspector?.(inspector);
    });

  program
    .command('stats')
    .description('events by type, slice sizes over time, and effect and saga outcomes of a flight recording')
    .argument('<recording>', 'a flight recording')
    .option('--session <module>', 'a module exporting the recording\'s `slices`')
    .option('--json', 'print the figures as JSON')
    .action(async (given: string, opts: { session?: string; json?: boolean }) => {
      const file = recordingOrRefuse('stats', given);
      if (file === undefined) return;
      const stats = { ...recordingStats(file, await definitionsFor(file, opts.session, io.cwd), io), file: given };
      io.stdout.write(`${opts.json === true ? JSON.stringify(stats, null, 2) : formatStats(stats)}\n`);
    });

  program
    .command('history')
    .description("list a thread's checkpoints (id, parent, step, node, time, changed fields) from a checkpointFiles directory of createCheckpointer or of the LangGraph RxSliceSaver")
    .argument('<dir>', 'the directory given to checkpointFiles(dir) (by createCheckpointer or RxSliceSaver)')
    .requiredOption('--thread <id>', 'the thread id')
    .option('--json', 'print the checkpoints as JSON')
    .action((dir: string, opts: { thread: string; json?: boolean }) => {
      const full = path.resolve(io.cwd, dir);
      const input = inputKind(full);
      if (input.kind !== 'checkpoints-directory' && input.kind !== 'langgraph-directory') {
        io.stderr.write(`${refusal('history', dir, input, 'a directory of checkpoint files (checkpointFiles(dir) of createCheckpointer or of the LangGraph RxSliceSaver)')}\n`);
        code = 1;
        return;
      }
      const history = threadHistory(full, opts.thread);
      io.stdout.write(`${opts.json === true ? JSON.stringify(history, null, 2) : formatHistory(history)}\n`);
    });

  program
    .command('watch')
    .description('follow Claude Code transcripts while they are written (files or directories; default ~/.claude/projects), one session each')
    .argument('[paths...]', 'transcript files or directories (every *.jsonl below, subagents included)')
    .option('--store <dir>', 'keep each session durable in <dir>; a restarted watch continues every file from its last committed line')
    .option('--json', 'print one JSON object per update and notice')
    .option('--poll', 'poll the files instead of file-system events (network file systems)')
    .option('--budgets <file>', 'a JSON file of budgets: { maxTokens, errorRate: { max, windowMs, minCalls }, maxPhaseMs, command, url }')
    .option('--max-tokens <n>', 'alert when a session has counted more tokens than this', positive)
    .option('--max-error-rate <fraction>', 'alert when more than this share (0-1) of the tool calls settled in the window failed', fraction)
    .option('--error-window-ms <ms>', 'the window of --max-error-rate, in transcript time (default 600000)', positive)
    .option('--max-phase-ms <ms>', 'alert when a session stays longer than this in one phase (transcript time)', positive)
    .option('--on-alert <command>', 'run this shell command for each alert (the alert as JSON in $RXSLICE_ALERT)')
    .option('--alert-url <url>', 'POST each alert as JSON to this URL')
    .option('--inspect', 'serve the live inspector page: every watched session, new events as they commit')
    .option('--port <n>', `port of the live inspector (0: any free port; default ${LIVE_INSPECTOR_PORT})`, port)
    .option('--host <address>', 'interface of the live inspector (default 127.0.0.1: this machine only)')
    .option('--allowed-host <name...>', 'host names the page may also be reached by (a proxy or tunnel name); others get 403 (DNS rebinding guard)')
    .action(async (paths: string[], opts: WatchCommandOptions) => {
      if (opts.inspect !== true && (opts.port !== undefined || opts.host !== undefined || opts.allowedHost !== undefined)) {
        io.stderr.write('rxslice watch: --port, --host and --allowed-host are options of the live inspector: add --inspect\n');
        code = 2;
        return;
      }
      const watch = await watchCommand(paths, opts, io);
      if (watch === undefined) {
        code = 1;
        return;
      }
      options.onWatch?.(watch);
    });

  // `-v` as the first argument prints the version too (commander takes one short flag for it; `-V` is its).
  const args = argv[0] === '-v' ? ['-V', ...argv.slice(1)] : [...argv];
  try {
    await program.parseAsync(args, { from: 'user' });
    return code;
  } catch (e) {
    if (e instanceof CommanderError) return e.exitCode === 0 ? 0 : 2;
    if (e instanceof InvalidArgumentError || e instanceof DefinitionsError || e instanceof HistoryError || isRxSliceError(e)) {
      const what = isRxSliceError(e) ? `${e.name} (${e.code}): ` : '';
      io.stderr.write(`rxslice: ${what}${e.message}\n`);
      return 1;
    }
    throw e;
  }
}

/** The `rxslice` bin: runs {@link runCli} on `process.argv`. */
export async function main(options: RunCliOptions = {}): Promise<void> {
  const io: CliIO = { stdout: process.stdout, stderr: process.stderr, cwd: process.env['INIT_CWD'] ?? process.cwd() };
  const onWatch = (watch: WatchCommandHandle): void => {
    const stop = (): void => void watch.close().then(() => process.exit(0));
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
    options.onWatch?.(watch);
  };
  const code = await runCli([...(options.argvPrefix ?? []), ...process.argv.slice(2)], io, { ...options, onWatch });
  if (code !== 0) process.exitCode = code;
}
