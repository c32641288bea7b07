import type { Observable, SchedulerLike } from 'rxjs';
import type { SignalChannelDef } from './signal-channel';
import type { SignalClaimLostError, SignalFileRejectedError } from './signal-errors';

/** The `format` of a signal file's JSON envelope. */
export const SIGNAL_FILE_FORMAT = 'rxslice.signal/1';

/** One signal read from its file. */
export interface SignalFile<TSignal> {
  /** The file name without `.json`; unique, and what orders signals. */
  readonly id: string;
  /** Who published it (the pattern's agent type); the start of the file name. */
  readonly source: string;
  /** When it was published (ISO 8601, ms, from the file name). */
  readonly publishedAt: string;
  /** The signal, validated by the channel's schema (its output). */
  readonly signal: TSignal;
  /** Where the file is: the queue (`<dir>/<id>.json`), `claimed/` or `processed/`. */
  readonly path: string;
}

/** A signal this process claimed: nobody else takes it until it is archived, released, or its claim is returned (see {@link createSignalDirectory}). */
export interface ClaimedSignal<TSignal> extends SignalFile<TSignal> {
  /** When it was claimed (ms since the epoch). */
  readonly claimedAtMs: number;
}

/** Options of {@link createSignalDirectory}. */
export interface SignalDirectoryOptions<TChannel extends SignalChannelDef<string, any, any>> {
  /** The directory (created with its `claimed/`, `processed/` and `rejected/` subdirectories if missing). */
  readonly dir: string;
  readonly channel: TChannel;
  /** The default `source` of published signals (a word as for channel names). Default: the channel's name. */
  readonly source?: string;
  /**
   * ms after which a claim that was not renewed (claim time or last `renew`) is returned to the
   * queue by the next poll of any process. Default 300,000 (5 min). `watch` renews the claim of
   * a running handler every `leaseMs / 3`.
   */
  readonly leaseMs?: number;
  /** ms after which a temp file (`*.json.<n>`, `*.tmp`) counts as left by a dead writer and is set aside as `'partial'`. Default 60,000. */
  readonly staleTempMs?: number;
  /** Scheduler of `watch`'s poll timer and lease renewals. Default `asyncScheduler`. File names and leases use the wall clock. */
  readonly scheduler?: SchedulerLike;
}

/** Options of {@link SignalDirectory.watch}. */
export interface WatchSignalsOptions {
  /** ms between two looks at the directory when nothing woke the watcher. Default 1,000. */
  readonly pollIntervalMs?: number;
  /** Also wake on `fs.watch` events of the directory (lower latency; the timer stays as the safety net). Default true. */
  readonly fsWatch?: boolean;
}

/** The handler of {@link SignalDirectory.watch}: resolve when the signal is handled; reject (or throw) to return it to the queue. */
export type SignalHandler<TSignal> = (signal: ClaimedSignal<TSignal>, context: { readonly abortSignal: AbortSignal }) => unknown;

/** A signal channel opened over a directory: see {@link createSignalDirectory}. */
export interface SignalDirectory<TSignal, TInput = TSignal> {
  readonly dir: string;
  readonly channel: SignalChannelDef<string, TSignal, TInput>;
  /** This opener's id as written into its claims: `<pid>~<host>~<random>`. */
  readonly claimerId: string;
  /**
   * Bad files set aside ({@link SignalFileRejectedError}) and claims lost before archive in
   * `watch` ({@link SignalClaimLostError}). Hot: emits synchronously during the poll that found it;
   * completes on `dispose()`. Nothing here ends a poll or a watch.
   */
  readonly errors$: Observable<SignalFileRejectedError | SignalClaimLostError>;
  /**
   * Validates `signal` with the channel's schema and writes it as one file, atomically and
   * durably (temp file, fsync, rename, directory fsync). Synchronous: when it returns, the signal
   * is pending and survives a crash.
   * @param options.source - Who publishes (the pattern's agent type); default the directory's `source`.
   * @returns The signal as pollers will read it (`path` in the queue).
   * @throws {@link InvalidSignalError} (with zod's `issues`) when it fails the schema or `source` is not a word; nothing is written.
   * @throws {@link SignalDirectoryError} when the file system fails; no file is left in the queue.
   * @example
   * ```ts
   * const s = signals.publish({ status: 'completed', nextState: 'review' }, { source: 'planner' });
   * console.log(s.path); // Logs: .agent-signals/planner-20261128T093246123Z-00000001-4242-9f3a1c2e.json
   * ```
   */
  publish(signal: TInput, options?: { readonly source?: string }): SignalFile<TSignal>;
  /**
   * The pending signals (not claimed, archived or rejected), in order, each read and validated.
   * Synchronous. Claims abandoned by dead processes or past their lease go back to the queue
   * first; bad files are set aside and reported on `errors$` (synchronously) instead.
   * Polling claims nothing: use `claim`/`claimNext`/`watch` when several pollers compete.
   * @throws {@link SignalDirectoryError} when the directory cannot be read.
   * @example
   * ```ts
   * for (const s of signals.poll()) console.log(s.source, s.signal.status); // Logs: planner completed
   * ```
   */
  poll(): readonly SignalFile<TSignal>[];
  /**
   * Claims one pending signal by renaming it into `claimed/` under this claimer's id: of several
   * processes claiming one signal, exactly one gets it. Synchronous.
   * @param signal - A polled signal, or its `id`.
   * @returns The claimed signal (`path` under `claimed/`), or `undefined` when another claimer
   * took it first (or it was set aside as bad: then `errors$` says so).
   * @example
   * ```ts
   * const [first] = signals.poll();
   * const mine = first && signals.claim(first); // undefined if another orchestrator was faster
   * ```
   */
  claim(signal: SignalFile<TSignal> | string): ClaimedSignal<TSignal> | undefined;
  /**
   * Claims the first pending signal in order that this claimer can take; `undefined` when the
   * queue is empty. Synchronous; reads only the file it claims.
   * @example
   * ```ts
   * for (let s = signals.claimNext(); s; s = signals.claimNext()) { handle(s.signal); signals.archive(s); }
   * ```
   */
  claimNext(): ClaimedSignal<TSignal> | undefined;
  /**
   * Moves a signal whose handler finished into `processed/<id>.json` (and fsyncs the folder):
   * a claimed one, or a pending one (the pattern's `archive_signal(path)`, which claims and
   * archives in one rename). Synchronous.
   * @param signal - A signal from `claim`/`claimNext`/`poll`, or the path of its file.
   * @returns The signal with its `path` under `processed/`.
   * @throws {@link SignalClaimLostError} when the file is gone (taken by another poller, or the claim was returned after its lease).
   * @example
   * ```ts
   * const done = signals.archive(claimed);
   * console.log(done.path); // Logs: .agent-signals/processed/planner-20261128T093246123Z-00000001-4242-9f3a1c2e.json
   * ```
   */
  archive(signal: SignalFile<TSignal> | string): SignalFile<TSignal>;
  /**
   * Gives a claimed signal back to the queue, in its place (its name, hence its order, is unchanged). Synchronous.
   * @throws {@link SignalClaimLostError} when the claim is already gone.
   * @example
   * ```ts
   * signals.release(claimed); // another poller (or this one) takes it again
   * ```
   */
  release(signal: ClaimedSignal<TSignal>): SignalFile<TSignal>;
  /**
   * Extends a claim's lease by `leaseMs` from now (touches the claimed file). Call it more often
   * than every `leaseMs` while a handler runs longer than that; `watch` does it by itself.
   * @throws {@link SignalClaimLostError} when the claim was already returned to the queue.
   * @example
   * ```ts
   * const beat = setInterval(() => signals.renew(claimed), 60_000);
   * ```
   */
  renew(signal: ClaimedSignal<TSignal>): void;
  /**
   * An orchestrator's loop as a cold observable: on subscribe, and then whenever the directory
   * changes (`fs.watch`) or every `pollIntervalMs` on the scheduler, claims the pending signals in
   * order, one at a time; for each, awaits `handler` (renewing the claim every `leaseMs / 3`),
   * archives it, then emits it (asynchronously, with its `processed/` path).
   *
   * @remarks Never completes by itself; completes on `dispose()`. A handler that throws or rejects
   * gets its signal released back to the queue and the observable errors with
   * {@link SignalHandlerError} (resubscribe, e.g. `retry({ delay: 1000 })`, to go on). Unsubscribing
   * aborts `abortSignal`; a handler that still finishes has its signal archived (its work is done),
   * one that fails has it released. Bad files and lost claims go to `errors$`.
   * @example
   * ```ts
   * signals.watch(async (s) => { await runAgent(s.signal.nextState); }).subscribe((s) => console.log('done', s.id));
   * ```
   */
  watch(handler: SignalHandler<TSignal>, options?: WatchSignalsOptions): Observable<SignalFile<TSignal>>;
  /** Completes every running `watch` and `errors$`. Claims held stay claimed until their handlers finish (or their lease runs out). Files are untouched. */
  dispose(): void;
}
