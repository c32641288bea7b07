/**
 * `rxslice watch [paths...]`: follows transcripts while they are written and shows what each
 * session did: on a terminal a table with one row per active session, redrawn in place; else one
 * line per update (`--json`: one JSON object per line).
 */
import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import { InspectorListenError, serveInspector, type InspectorServer } from '../devtools/inspector-server';
import { LiveInspectorSource } from '../watch/live-inspector';
import { postAlert, runAlertCommand, type AlertPayload } from '../watch/alert-actions';
import { InvalidBudgetsError, parseBudgets, type Budgets } from '../watch/budgets';
import { LiveView } from '../watch/live-view';
import { sessionStatus, type SessionStatus } from '../watch/session-status';
import { defaultWatchPaths, watchTranscripts, type CatchUpProgress, type TranscriptWatch } from '../watch/watch-transcripts';
import type { PumpResult } from '../watch/watched-transcript';
import { inputKind, refusal, type InputKind } from './input-kind';
import type { CliIO } from './progress';

/** Options of `rxslice watch`. */
export interface WatchCommandOptions {
  readonly store?: string;
  readonly json?: boolean;
  readonly poll?: boolean;
  /** A JSON file of budgets (see `Budgets`); the options below override its fields. */
  readonly budgets?: string;
  readonly maxTokens?: number;
  readonly maxErrorRate?: number;
  readonly errorWindowMs?: number;
  readonly maxPhaseMs?: number;
  readonly onAlert?: string;
  readonly alertUrl?: string;
  /** Serve the live inspector page. */
  readonly inspect?: boolean;
  /** Its port (default 4401; 0: any free port). */
  readonly port?: number;
  /** Its interface (default 127.0.0.1). */
  readonly host?: string;
  /** Host names the live inspector also answers to (besides localhost and its own address). */
  readonly allowedHost?: readonly string[];
}

/** What {@link watchCommand} starts: the watch, and its live inspector with `--inspect`. */
export interface WatchCommandHandle extends TranscriptWatch {
  /** The live inspector's server (with `--inspect`). */
  readonly inspector: InspectorServer | undefined;
}

/** The port of `watch --inspect` when none is given (`inspect` takes 4400: both can run). */
export const LIVE_INSPECTOR_PORT = 4401;

/** One output record of `watch --json`. */
export type WatchRecord =
  | ({ readonly type: 'update'; readonly at: string; readonly newLines: number; readonly newEvents: number; readonly refused: number; readonly restarted: string | null } & SessionStatus)
  | { readonly type: 'notice'; readonly at: string; readonly label: string | null; readonly message: string }
  /** A line that is not JSON: its file, number (from 1) and the parser's reason, besides the sentence. */
  | { readonly type: 'notice'; readonly at: string; readonly label: string; readonly message: string; readonly file: string; readonly line: number; readonly reason: string }
  | (AlertPayload & { readonly at: string })
  /** While the watch catches up (at most every 500 ms, and once when every file is caught up: `caughtUp === files`). */
  | ({ readonly type: 'progress'; readonly at: string } & CatchUpProgress);

/** The budgets of the command: the file's, then the options'. Throws {@link InvalidBudgetsError}. */
function budgetsOf(opts: WatchCommandOptions, cwd: string): Budgets | undefined {
  let fromFile: Record<string, unknown> = {};
  if (opts.budgets !== undefined) {
    const file = path.resolve(cwd, opts.budgets);
    try {
      fromFile = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
    } catch (e) {
      throw new InvalidBudgetsError(file, [{ path: [], message: e instanceof Error ? e.message : String(e) }]);
    }
  }
  const errorRate = opts.maxErrorRate === undefined ? fromFile['errorRate'] : { ...(fromFile['errorRate'] as object | undefined), max: opts.maxErrorRate, ...(opts.errorWindowMs === undefined ? {} : { windowMs: opts.errorWindowMs }) };
  const merged = Object.fromEntries(
    Object.entries({
      ...fromFile,
      errorRate,
      maxTokens: opts.maxTokens ?? fromFile['maxTokens'],
      maxPhaseMs: opts.maxPhaseMs ?? fromFile['maxPhaseMs'],
      command: opts.onAlert ?? fromFile['command'],
      url: opts.alertUrl ?? fromFile['url'],
    }).filter(([, v]) => v !== undefined),
  );
  if (Object.keys(merged).length === 0) return undefined;
  return parseBudgets(merged, opts.budgets ?? 'the options');
}

const n = (value: number): string => value.toLocaleString('en-US');

/** One plain line for an update. */
export function formatUpdate(status: SessionStatus, result: PumpResult, now: Date): string {
  return (
    `${now.toISOString().slice(11, 19)} ${status.label} +${n(result.lines)} lines +${n(result.events)} events` +
    `${result.refused > 0 ? ` (${n(result.refused)} refused)` : ''} | ${status.phase} | tools ${n(status.toolCalls)} (${n(status.errors)} failed)` +
    ` | tokens ${n(status.tokens)} | ${n(status.lines)} lines, ${n(status.offset)} bytes`
  );
}

const mb = (bytes: number): string => (bytes / 1e6).toFixed(1);

/**
 * The progress line of a catch-up: `catching up: 12 of 200 files, 35.2 of 301.0 MB (3.1 s)`, or,
 * once every file is caught up, `caught up: 200 files, 301.0 MB in 25.3 s`.
 */
export function formatProgress(p: CatchUpProgress): string {
  const seconds = `${(p.elapsedMs / 1000).toFixed(1)} s`;
  if (p.caughtUp === p.files) return `caught up: ${n(p.files)} file${p.files === 1 ? '' : 's'}, ${mb(p.totalBytes)} MB in ${seconds}`;
  return `catching up: ${n(p.caughtUp)} of ${n(p.files)} files, ${mb(p.bytes)} of ${mb(p.totalBytes)} MB (${seconds})`;
}

/** What `rxslice watch` follows, as its refusals say. */
const WATCH_EXPECTS = 'Claude Code transcripts (.jsonl files, or directories of them)';
/** What it accepts: transcripts, and directories other than rxslice's own (a directory may fill later). */
const WATCHABLE: ReadonlySet<InputKind> = new Set(['transcript', 'transcripts-directory', 'empty-directory', 'other-directory']);

const expand = (p: string, cwd: string): string => path.resolve(cwd, p === '~' ? homedir() : p.startsWith('~/') ? path.join(homedir(), p.slice(2)) : p);

/**
 * Starts the watch for `rxslice watch` and resolves with it once the files present were read to
 * their end (it keeps running: close it to stop); when there were none, a notice says it waits for one.
 * Lines are applied in slices, so the table (or `update` records) fills in while a long catch-up
 * runs, with a progress line (`progress` records with `--json`, stderr lines without a terminal)
 * every 500 ms until every file is caught up.
 * A path that does not exist or is not transcripts (a flight recording, a store or checkpoint
 * directory, another kind of file) is refused with one line on stderr, and the others are watched.
 * Resolves `undefined` (and writes why on stderr) when no path is left, or, with `inspect`, when
 * the inspector cannot listen (its port is in use): nothing is watched then.
 * @example
 * ```ts
 * const watch = await watchCommand(['t.jsonl'], { store: '.rxslice/watch', json: true }, io);
 * // stdout: {"type":"update","label":"t","newLines":12,...}
 * await watch?.close();
 * ```
 */
export async function watchCommand(paths: readonly string[], opts: WatchCommandOptions, io: CliIO): Promise<WatchCommandHandle | undefined> {
  const given = paths.length > 0 ? paths : defaultWatchPaths();
  const refused: string[] = [];
  const targets = given
    .map((p) => ({ p, full: expand(p, io.cwd) }))
    .filter(({ p, full }) => {
      let input = inputKind(full);
      // The watch follows *.jsonl files only: a transcript by another name would never be read.
      if (input.kind === 'transcript' && !full.endsWith('.jsonl')) input = { kind: 'other-file', description: `${input.description}, but not named *.jsonl (the watch follows *.jsonl files)` };
      if (WATCHABLE.has(input.kind)) return true;
      refused.push(refusal('watch', p, input, WATCH_EXPECTS));
      return false;
    })
    .map(({ full }) => full);
  if (targets.length === 0) {
    for (const line of refused) io.stderr.write(`${line}\n`);
    if (paths.length === 0) io.stderr.write('rxslice watch: nothing to watch (give transcript files or directories; the default is ~/.claude/projects)\n');
    return undefined;
  }
  for (const line of refused) io.stderr.write(`${line}; skipping it\n`);
  const budgets = budgetsOf(opts, io.cwd);
  const json = opts.json === true;
  /** The last alert of each session, shown in its row of the live view. */
  const lastAlert = new Map<string, string>();
  // On a terminal (and without --json): one row per active session, redrawn in place.
  let view: LiveView | undefined;
  const emit = (record: WatchRecord): void => void io.stdout.write(`${JSON.stringify(record)}\n`);
  const notice = (message: string, label: string | null): void => {
    if (view !== undefined) view.notice(`rxslice watch: ${message}`);
    else if (json) emit({ type: 'notice', at: new Date().toISOString(), label, message });
    else io.stderr.write(`rxslice watch: ${message}\n`);
  };
  // The inspector listens before anything is watched: a port in use stops the command, with why.
  let live: LiveInspectorSource | undefined;
  let inspector: InspectorServer | undefined;
  if (opts.inspect === true) {
    live = new LiveInspectorSource((message) => notice(message, null));
    try {
      inspector = await serveInspector({
        source: live,
        port: opts.port ?? LIVE_INSPECTOR_PORT,
        host: opts.host ?? '127.0.0.1',
        ...(opts.allowedHost === undefined ? {} : { allowedHosts: opts.allowedHost }),
      });
    } catch (e) {
      live.close();
      if (!(e instanceof InspectorListenError)) throw e;
      io.stderr.write(`rxslice watch: ${e.message}\n`);
      return undefined;
    }
  }
  const watch = watchTranscripts({
    paths: targets,
    ...(opts.store === undefined ? {} : { store: expand(opts.store, io.cwd) }),
    usePolling: opts.poll === true,
    ...(live === undefined ? {} : { onSession: (watched) => live.attach(watched) }),
    onUpdate: (watched, result) => {
      live?.update(watched);
      const status = sessionStatus(watched);
      const now = new Date();
      if (view !== undefined) view.update();
      else if (json) emit({ type: 'update', at: now.toISOString(), newLines: result.lines, newEvents: result.events, refused: result.refused, restarted: result.restarted ?? null, ...status });
      else io.stdout.write(`${formatUpdate(status, result, now)}\n`);
    },
    ...(budgets === undefined ? {} : { budgets }),
    onAlert: (watched, alert) => {
      const payload: AlertPayload = { type: 'alert', label: watched.label, file: watched.file, ...alert };
      lastAlert.set(watched.label, alert.message);
      if (view !== undefined) view.notice(`rxslice watch: ALERT ${watched.label}: ${alert.message}`);
      else if (json) emit({ ...payload, at: new Date().toISOString() });
      else io.stdout.write(`ALERT ${watched.label}: ${alert.message}\n`);
      const report = (what: string, outcome: number | string, ok: boolean): void => {
        if (ok) return;
        const message = `${watched.label}: the alert ${what} failed: ${String(outcome)}`;
        if (view !== undefined) view.notice(`rxslice watch: ${message}`);
        else if (json) emit({ type: 'notice', at: new Date().toISOString(), label: watched.label, message });
        else io.stderr.write(`rxslice watch: ${message}\n`);
      };
      if (budgets?.command !== undefined) void runAlertCommand(budgets.command, payload).then((code) => report(`command (${budgets.command!})`, code === 0 ? 0 : `exit ${String(code)}`, code === 0));
      if (budgets?.url !== undefined) void postAlert(budgets.url, payload).then((status) => report(`POST to ${budgets.url!}`, status, typeof status === 'number' && status >= 200 && status < 300));
    },
    onInvalidLine: (watched, { file, line, reason }) => {
      const message = `${watched.label}: line ${line} of ${file} is not JSON (${reason}); it gives no event`;
      if (view !== undefined) view.notice(`rxslice watch: ${message}`);
      else if (json) emit({ type: 'notice', at: new Date().toISOString(), label: watched.label, message, file, line, reason });
      else io.stderr.write(`rxslice watch: ${message}\n`);
    },
    onProgress: (p) => {
      const done = p.caughtUp === p.files;
      if (view !== undefined) {
        view.progress(done ? undefined : formatProgress(p));
        if (done) view.notice(`rxslice watch: ${formatProgress(p)}`);
      } else if (json) emit({ type: 'progress', at: new Date().toISOString(), ...p });
      else io.stderr.write(`rxslice watch: ${formatProgress(p)}\n`);
    },
    onNotice: (message, watched) => {
      live?.noticed(watched);
      notice(message, watched?.label ?? null);
    },
  });
  if (inspector !== undefined) notice(`live inspector at ${inspector.url}  (this machine only; Ctrl-C stops)`, null);
  if (!json && io.stdout.isTTY === true) {
    view = new LiveView(io.stdout, () => [...watch.transcripts.values()].map(sessionStatus), () => lastAlert);
    view.draw();
  }
  await watch.ready;
  // Nothing found yet: say what is watched, else the command looks hung until a transcript appears.
  if (watch.transcripts.size === 0) notice(`waiting for transcripts: no *.jsonl file in ${targets.join(', ')} yet (subdirectories included); each one that appears is watched`, null);
  const close = watch.close.bind(watch);
  return {
    transcripts: watch.transcripts,
    ready: watch.ready,
    inspector,
    async close() {
      view?.close();
      await close();
      await inspector?.close();
      live?.close();
    },
  };
}
