// Shared by the watch tests: bundling and running the `rxslice` command line as a child process,
// and comparing a watched session with a replay of its final file.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { replayTranscript, type ReplayReport } from '../../src/transcripts/replay';
import { splitLines } from '../../src/transcripts/parse';
import { WatchCursor, WatchRun, type WatchCursorItem } from '../../src/watch/watch-cursor';
import { createWatchSession, type WatchSession } from '../../src/watch/watch-session';

const here = dirname(fileURLToPath(import.meta.url));

/** Bundles test/watch/watch-child.ts (the command line) once, CommonJS for Node 20, and returns the file to run with `node`. */
export const bundleCli = (): Promise<string> => bundleChild('watch-child');

/** Bundles test/watch/`name`.ts, CommonJS for Node 20, and returns the file to run with `node`. */
export async function bundleChild(name: string): Promise<string> {
  const { build } = await import('esbuild');
  const out = join(mkdtempSync(join(tmpdir(), 'rxslice-watch-bundle-')), `${name}.cjs`);
  await build({ entryPoints: [join(here, `${name}.ts`)], bundle: true, platform: 'node', format: 'cjs', target: 'node20', outfile: out, logLevel: 'error' });
  return out;
}

/** How long {@link Child.waitFor} waits before failing with what the child printed (ms; a loaded CI machine is slow to start node). */
const WAIT_MS = 30_000;

/** A running child with its stdout lines. */
export interface Child {
  readonly proc: ChildProcess;
  readonly lines: string[];
  readonly exited: Promise<number | null>;
  /** Resolves with the first stdout line matching `predicate` (already printed or to come); rejects when the child exits first. */
  waitFor(predicate: (line: string) => boolean): Promise<string>;
}

/** Starts `node <args>` and collects its stdout lines (stderr is inherited). */
export function startChild(args: readonly string[]): Child {
  const proc = spawn(process.execPath, [...args], { stdio: ['ignore', 'pipe', 'inherit'] });
  const lines: string[] = [];
  const waiters: { predicate: (line: string) => boolean; resolve: (line: string) => void; reject: (e: Error) => void }[] = [];
  let buffered = '';
  proc.stdout!.setEncoding('utf8');
  proc.stdout!.on('data', (chunk: string) => {
    buffered += chunk;
    let nl;
    while ((nl = buffered.indexOf('\n')) !== -1) {
      const line = buffered.slice(0, nl);
      buffered = buffered.slice(nl + 1);
      lines.push(line);
      for (const w of [...waiters]) {
        if (w.predicate(line)) {
          waiters.splice(waiters.indexOf(w), 1);
          w.resolve(line);
        }
      }
    }
  });
  const exited = new Promise<number | null>((resolve) =>
    proc.on('exit', (code) => {
      for (const w of waiters.splice(0)) w.reject(new Error(`child exited (${String(code)}) before the awaited line; it printed:\n${lines.join('\n')}`));
      resolve(code);
    }),
  );
  return {
    proc,
    lines,
    exited,
    waitFor(predicate) {
      const seen = lines.find(predicate);
      if (seen !== undefined) return Promise.resolve(seen);
      if (proc.exitCode !== null || proc.signalCode !== null) return Promise.reject(new Error(`child already exited; it printed:\n${lines.join('\n')}`));
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no awaited line after ${WAIT_MS} ms; the child printed:\n${lines.join('\n')}`)), WAIT_MS);
        waiters.push({ predicate, resolve: (line) => (clearTimeout(timer), resolve(line)), reject: (e) => (clearTimeout(timer), reject(e)) });
      });
    },
  };
}

/** The slices of a session as JSON, the watch's cursor, run counter and alerts left out (a replay has none). */
export function transcriptState(session: WatchSession): Record<string, unknown> {
  const slices = { ...(session.snapshot({ includeLogs: true }).toJSON().slices as Record<string, unknown>) };
  delete slices[WatchCursor.name];
  delete slices[WatchRun.name];
  delete slices['watchAlerts'];
  return slices;
}

/** The parts of a report read from the session's state (not from the replay run itself). */
export const stateReport = (r: ReplayReport) => ({ tools: r.tools, toolCalls: r.toolCalls, task: r.task, tokens: r.tokens, phases: r.phases, windows: r.windows.map((w) => [w.slice, w.size]) });

/** What the test compares: the stored session against a replay of the final file. */
export interface Comparison {
  readonly cursor: WatchCursorItem;
  readonly replay: ReplayReport;
  readonly stored: ReplayReport;
  readonly replayState: Record<string, unknown>;
  readonly storedState: Record<string, unknown>;
  readonly fileBytes: number;
}

/** Opens the durable session in `storeDir`, replays `file` into a fresh in-memory watch session, and reads both. */
export function compareWithReplay(file: string, storeDir: string): Comparison {
  const text = readFileSync(file);
  const fresh = createWatchSession();
  const replay = replayTranscript(splitLines(text.toString('utf8')), { source: file, session: fresh });
  const replayState = transcriptState(fresh);
  fresh.dispose();
  const session = createWatchSession({ storeDir });
  try {
    // An empty replay into the stored session reads its report from its state alone.
    const stored = replayTranscript([], { source: file, session });
    return { cursor: session.slice(WatchCursor).latest() as WatchCursorItem, replay, stored, replayState, storedState: transcriptState(session), fileBytes: text.length };
  } finally {
    session.dispose();
  }
}
