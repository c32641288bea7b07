/**
 * `rxslice watch`: follows Claude Code transcripts while they are written (chokidar finds the
 * files and their changes), one {@link WatchedTranscript} per file.
 */
import { homedir } from 'node:os';
import path from 'node:path';
import { watch as chokidarWatch, type FSWatcher } from 'chokidar';
import { checkBudgets, type BudgetAlert, type Budgets } from './budgets';
import { WatchedTranscript, type InvalidLine, type PumpResult } from './watched-transcript';

/** The label and parent of a transcript file (see {@link transcriptLabel}). */
export interface TranscriptIdentity {
  readonly label: string;
  readonly parent?: string;
}

const SUBAGENT = /[/\\]([^/\\]+)[/\\]subagents[/\\]([^/\\]+)\.jsonl$/;

/**
 * The name of a transcript: its file name without `.jsonl` (Claude Code names a session's file
 * by its id); a subagent file `<session>/subagents/<agent>.jsonl` is `<session>/<agent>`, with
 * `parent` the session's label.
 * @example
 * ```ts
 * transcriptLabel('/p/4d56.jsonl');                       // { label: '4d56' }
 * transcriptLabel('/p/4d56/subagents/agent-a1.jsonl');    // { label: '4d56/agent-a1', parent: '4d56' }
 * ```
 */
export function transcriptLabel(file: string): TranscriptIdentity {
  const m = SUBAGENT.exec(file);
  if (m !== null) return { label: `${m[1]!}/${m[2]!}`, parent: m[1]! };
  return { label: path.basename(file, '.jsonl') };
}

/** The directory of `label`'s durable session under `store`. */
export const storeDirOf = (store: string, label: string): string => path.join(store, label.replace(/\//g, '__').replace(/[^A-Za-z0-9._-]/g, '_'));

/** The default paths of `rxslice watch`: `~/.claude/projects/`. */
export const defaultWatchPaths = (): string[] => [path.join(homedir(), '.claude', 'projects')];

/** Options of {@link watchTranscripts}. */
export interface WatchOptions {
  /** Files and directories (every `*.jsonl` below a directory, subagent files included). */
  readonly paths: readonly string[];
  /** Keep every session durable in `<store>/<label>/` (`jsonl` storage); a restarted watch continues each file where it stopped. */
  readonly store?: string;
  /**
   * Called with each session a transcript feeds, before any line is applied to it: when its file
   * is opened, and each time the file starts over (see `WatchedTranscriptOptions.onSession`).
   */
  readonly onSession?: (watched: WatchedTranscript) => void;
  /** Called after lines of a transcript were applied (or it started over). */
  readonly onUpdate?: (watched: WatchedTranscript, result: PumpResult) => void;
  /** Called with a sentence about what happened to a file: added, started over, gone, unreadable, a session error. */
  readonly onNotice?: (message: string, watched?: WatchedTranscript) => void;
  /**
   * Called with each line that is not JSON, before the line is committed (see
   * `WatchedTranscriptOptions.onInvalidLine`: a restarted watch reports again only a line it had
   * not committed).
   */
  readonly onInvalidLine?: (watched: WatchedTranscript, line: InvalidLine) => void;
  /** Thresholds checked after each update of a session (see `checkBudgets`). */
  readonly budgets?: Budgets;
  /** Called with each budget alert raised (after its `watch/budgetExceeded` event committed). */
  readonly onAlert?: (watched: WatchedTranscript, alert: BudgetAlert) => void;
  /** chokidar's `usePolling` (network file systems). Default false. */
  readonly usePolling?: boolean;
  /**
   * Every `recheckMs` each open file is `stat`ed and read when it grew, shrank or was replaced
   * without an event (file-system events closer than a few ms are merged and the last write can
   * go unreported). Default 250.
   */
  readonly recheckMs?: number;
}

/** A running watch (see {@link watchTranscripts}). */
export interface TranscriptWatch {
  /** The transcripts followed, by file. */
  readonly transcripts: ReadonlyMap<string, WatchedTranscript>;
  /** Resolves once the initial scan is done and every file found was read to its end. */
  readonly ready: Promise<void>;
  /** Stops watching and disposes every session (durable ones release their directories). */
  close(): Promise<void>;
}

/**
 * Follows the transcripts under `paths`: every `*.jsonl` file found at the start or added later
 * gets its own session ({@link WatchedTranscript}), fed with the lines appended to it.
 *
 * @remarks Files are read synchronously when chokidar reports them (`add`, `change`), so the
 * sessions are updated one file at a time, in the order the changes arrive. Bad input never
 * stops the other files: a file whose store cannot be opened (tried again every `4 × recheckMs`
 * until it opens: another writer may hold it for a while), a file that disappears
 * (`unlink`: its session is closed, its store kept), an unreadable directory (chokidar's
 * `error`) are reported through `onNotice`; a line that is not JSON gives no event (it is counted
 * in the cursor's `lines`) and is reported through `onInvalidLine`. Besides chokidar's events, every open file
 * is checked every `recheckMs` (one `stat`), so a write whose event was merged away is read too.
 * @example
 * ```ts
 * const w = watchTranscripts({ paths: ['~/.claude/projects'], store: '.rxslice/watch', onUpdate: (t, r) => console.log(t.label, r.events) });
 * await w.ready;
 * // ... later
 * await w.close();
 * ```
 */
export function watchTranscripts(options: WatchOptions): TranscriptWatch {
  const transcripts = new Map<string, WatchedTranscript>();
  const labels = new Set<string>();
  const notice = options.onNotice ?? (() => undefined);

  /** Files whose session could not be opened, with when to try again (ms since the epoch). */
  const unopened = new Map<string, number>();
  const retryMs = 4 * (options.recheckMs ?? 250);

  const open = (file: string): WatchedTranscript | undefined => {
    const existing = transcripts.get(file);
    if (existing !== undefined && !existing.closed) return existing;
    const identity = transcriptLabel(file);
    let label = identity.label;
    for (let n = 2; labels.has(label) && transcripts.get(file)?.label !== label; n++) label = `${identity.label}~${n}`;
    let watched: WatchedTranscript;
    try {
      watched = new WatchedTranscript({
        file,
        label,
        ...(identity.parent === undefined ? {} : { parent: identity.parent }),
        ...(options.store === undefined ? {} : { storeDir: storeDirOf(options.store, label) }),
        onError: (error) => notice(`${label}: session error: ${error instanceof Error ? error.message : String(error)}`),
        ...(options.onSession === undefined ? {} : { onSession: options.onSession }),
        ...(options.onInvalidLine === undefined ? {} : { onInvalidLine: (line: InvalidLine) => options.onInvalidLine?.(watched, line) }),
      });
      transcripts.set(file, watched);
      labels.add(label);
      unopened.delete(file);
      const cursor = watched.cursor;
      notice(
        `${label}: watching ${file}${identity.parent === undefined ? '' : ` (subagent of ${identity.parent})`}` +
          (cursor.offset > 0 ? `, continuing at byte ${cursor.offset} (line ${cursor.lines + 1})` : '') +
          (watched.openedRestart === undefined ? '' : `; the file was ${watched.openedRestart} since it was stored: starting it over`),
        watched,
      );
      return watched;
    } catch (e) {
      // Reported once; the recheck tries again (a store held by another writer is freed later,
      // and a transcript that changes no more would otherwise never be opened).
      if (!unopened.has(file)) notice(`${label}: cannot open ${file}: ${e instanceof Error ? e.message : String(e)}; trying again every ${retryMs} ms`);
      unopened.set(file, Date.now() + retryMs);
      return undefined;
    }
  };

  const pump = (file: string): void => {
    const watched = open(file);
    if (watched === undefined) return;
    let result: PumpResult;
    try {
      result = watched.pump();
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      notice(code === 'ENOENT' ? `${watched.label}: ${file} disappeared; its session is closed` : `${watched.label}: cannot read ${file}: ${e instanceof Error ? e.message : String(e)}`, watched);
      if (code === 'ENOENT') watched.close();
      return;
    }
    if (result.restarted !== undefined) notice(`${watched.label}: ${file} was ${result.restarted}: starting it over`, watched);
    if (result.lines > 0 || result.restarted !== undefined) options.onUpdate?.(watched, result);
    if (result.lines > 0 && options.budgets !== undefined) {
      for (const alert of checkBudgets(watched.current, options.budgets)) options.onAlert?.(watched, alert);
    }
  };

  const isTranscript = (file: string): boolean => file.endsWith('.jsonl');
  const watcher: FSWatcher = chokidarWatch([...options.paths], {
    ignored: (file, stats) => stats?.isFile() === true && !isTranscript(file),
    usePolling: options.usePolling ?? false,
    ignorePermissionErrors: false,
  });
  watcher.on('add', (file) => isTranscript(file) && pump(file));
  watcher.on('change', (file) => isTranscript(file) && pump(file));
  watcher.on('unlink', (file) => {
    unopened.delete(file);
    const watched = transcripts.get(file);
    if (watched === undefined || watched.closed) return;
    notice(`${watched.label}: ${file} disappeared; its session is closed`, watched);
    watched.close();
  });
  watcher.on('error', (error) => notice(`watch: ${error instanceof Error ? error.message : String(error)}`));
  const ready = new Promise<void>((resolve) => watcher.once('ready', () => resolve()));
  const recheck = setInterval(() => {
    for (const [file, watched] of transcripts) {
      let stale = false;
      try {
        stale = watched.hasNewBytes();
      } catch {
        stale = true; // unreadable now: pump says why
      }
      if (stale) pump(file);
    }
    const now = Date.now();
    for (const [file, at] of unopened) if (now >= at) pump(file);
  }, options.recheckMs ?? 250);
  recheck.unref();

  return {
    transcripts,
    ready,
    async close() {
      clearInterval(recheck);
      await watcher.close();
      for (const watched of transcripts.values()) watched.close();
    },
  };
}
