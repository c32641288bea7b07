/**
 * `rxslice watch`: follows Claude Code transcripts while they are written (chokidar finds the
 * files and their changes), one {@link WatchedTranscript} per file.
 */
import { homedir } from 'node:os';
import path from 'node:path';
import { watch as chokidarWatch, type FSWatcher } from 'chokidar';
import { checkBudgets, type BudgetAlert, type Budgets } from './budgets';
import { statFile } from './file-tail';
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
  /**
   * Called while the watch catches up (the lines waiting take longer than one `sliceMs` to apply:
   * its start, a large append, a directory of old transcripts): at most every `progressMs`, and
   * once more when every file is caught up (`caughtUp === files`). Not called for appends that
   * are applied within one slice.
   */
  readonly onProgress?: (progress: CatchUpProgress) => void;
  /** The shortest time between two `onProgress` calls (ms). Default 500. */
  readonly progressMs?: number;
  /**
   * The longest the watch applies lines before it yields to the event loop (ms): timers, the
   * terminal view and the live inspector run between slices, so a long catch-up shows as it goes.
   * A slice applies at least one run of lines (256) whatever its length (0: one run per slice).
   * Default 50.
   */
  readonly sliceMs?: number;
}

/** How far a watch that is catching up got (see `WatchOptions.onProgress`). */
export interface CatchUpProgress {
  /** Transcript files the watch knows of (found, opened or waiting to be opened). */
  readonly files: number;
  /** Those whose every complete line is applied. */
  readonly caughtUp: number;
  /** Bytes of those files applied (committed offsets, summed). */
  readonly bytes: number;
  /** Bytes of those files when they were last seen to change (sizes, summed). */
  readonly totalBytes: number;
  /** Milliseconds since this catch-up started (wall clock). */
  readonly elapsedMs: number;
}

/** Lines applied per `pump` call of a catch-up (between two looks at the clock). */
const LINES_PER_PUMP = 256;

/** A running watch (see {@link watchTranscripts}). */
export interface TranscriptWatch {
  /** The transcripts followed, by file. */
  readonly transcripts: ReadonlyMap<string, WatchedTranscript>;
  /** Resolves once the initial scan is done and every file found was read to its end (every line applied). */
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

  /** Applies up to {@link LINES_PER_PUMP} lines of `file`; true when more are waiting. */
  const pump = (file: string): boolean => {
    const watched = open(file);
    if (watched === undefined) return false;
    let result: PumpResult;
    try {
      result = watched.pump(LINES_PER_PUMP);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      notice(code === 'ENOENT' ? `${watched.label}: ${file} disappeared; its session is closed` : `${watched.label}: cannot read ${file}: ${e instanceof Error ? e.message : String(e)}`, watched);
      if (code === 'ENOENT') watched.close();
      return false;
    }
    if (result.restarted !== undefined) notice(`${watched.label}: ${file} was ${result.restarted}: starting it over`, watched);
    if (result.lines > 0 || result.restarted !== undefined) options.onUpdate?.(watched, result);
    if (result.lines > 0 && options.budgets !== undefined) {
      for (const alert of checkBudgets(watched.current, options.budgets)) options.onAlert?.(watched, alert);
    }
    return watched.backlogLines > 0;
  };

  // Files with lines to apply, in the order they asked; applied in slices of `sliceMs`, one file
  // after the other (a file's rows fill in before the next file starts), yielding in between.
  const queue = new Set<string>();
  /** Sizes of the files as last seen to change (for the progress's `totalBytes`). */
  const sizes = new Map<string, number>();
  const sliceMs = options.sliceMs ?? 50;
  const progressMs = options.progressMs ?? 500;
  let scheduled: ReturnType<typeof setImmediate> | undefined;
  let closed = false;
  /** When the running catch-up started and last reported (wall clock ms); undefined when none runs. */
  let catchUp: { startedMs: number; reportedMs: number } | undefined;
  let idle: (() => void) | undefined;
  let scanned = false;

  const progress = (now: number): CatchUpProgress => {
    let bytes = 0;
    let totalBytes = 0;
    for (const [file, size] of sizes) {
      totalBytes += size;
      bytes += queue.has(file) ? Math.min(size, transcripts.get(file)?.cursor.offset ?? 0) : size;
    }
    return { files: sizes.size, caughtUp: sizes.size - queue.size, bytes, totalBytes, elapsedMs: now - (catchUp?.startedMs ?? now) };
  };

  const drain = (): void => {
    scheduled = undefined;
    const started = Date.now();
    for (const file of queue) {
      let more: boolean;
      do more = pump(file);
      while (more && Date.now() - started < sliceMs);
      if (more) break;
      queue.delete(file);
      const watched = transcripts.get(file);
      // Not opened (it is tried again later) or gone: not a file the watch follows now.
      if (watched === undefined || watched.closed) sizes.delete(file);
      else sizes.set(file, Math.max(sizes.get(file) ?? 0, watched.cursor.offset));
    }
    const now = Date.now();
    if (queue.size > 0) {
      catchUp ??= { startedMs: started, reportedMs: -Infinity };
      if (now - catchUp.reportedMs >= progressMs) {
        catchUp.reportedMs = now;
        options.onProgress?.(progress(now));
      }
      schedule();
      return;
    }
    if (catchUp !== undefined) {
      options.onProgress?.(progress(now));
      catchUp = undefined;
    }
    if (scanned) idle?.();
  };

  const schedule = (): void => {
    if (scheduled === undefined && !closed) scheduled = setImmediate(drain);
  };

  /** Queues `file` to be read and applied (in the next slice). */
  const enqueue = (file: string): void => {
    let size: number | undefined;
    try {
      size = statFile(file)?.size;
    } catch {
      size = undefined; // unreadable: pump says why
    }
    if (size !== undefined) sizes.set(file, size);
    queue.add(file);
    schedule();
  };

  const isTranscript = (file: string): boolean => file.endsWith('.jsonl');
  const watcher: FSWatcher = chokidarWatch([...options.paths], {
    ignored: (file, stats) => stats?.isFile() === true && !isTranscript(file),
    usePolling: options.usePolling ?? false,
    ignorePermissionErrors: false,
  });
  watcher.on('add', (file) => isTranscript(file) && enqueue(file));
  watcher.on('change', (file) => isTranscript(file) && enqueue(file));
  watcher.on('unlink', (file) => {
    unopened.delete(file);
    queue.delete(file);
    sizes.delete(file);
    const watched = transcripts.get(file);
    if (watched === undefined || watched.closed) return;
    notice(`${watched.label}: ${file} disappeared; its session is closed`, watched);
    watched.close();
  });
  watcher.on('error', (error) => notice(`watch: ${error instanceof Error ? error.message : String(error)}`));
  // Ready once the scan is done and what it found is applied.
  const ready = new Promise<void>((resolve) => {
    idle = () => {
      idle = undefined;
      resolve();
    };
    watcher.once('ready', () => {
      scanned = true;
      if (queue.size === 0 && scheduled === undefined) idle?.();
    });
  });
  const recheck = setInterval(() => {
    for (const [file, watched] of transcripts) {
      let stale = false;
      try {
        stale = watched.hasNewBytes();
      } catch {
        stale = true; // unreadable now: pump says why
      }
      if (stale && !queue.has(file)) enqueue(file);
    }
    const now = Date.now();
    for (const [file, at] of unopened) if (now >= at && !queue.has(file)) enqueue(file);
  }, options.recheckMs ?? 250);
  recheck.unref();

  return {
    transcripts,
    ready,
    async close() {
      closed = true;
      if (scheduled !== undefined) clearImmediate(scheduled);
      scheduled = undefined;
      clearInterval(recheck);
      await watcher.close();
      for (const watched of transcripts.values()) watched.close();
    },
  };
}
