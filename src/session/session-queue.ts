import { Subject, type SchedulerLike } from 'rxjs';
import { RESERVED_PREFIX, ReservedEventTypeError } from '../events/define-event';
import type { Event } from '../events/event';
import type { Envelope, EnvelopeMeta } from '../events/envelope';
import { isRxSliceError, type RxSliceError } from '../internal/errors';
import { codedMessage } from '../internal/coded-message';
import { DEV } from '../internal/dev';
import type { Snapshot } from '../snapshots/snapshot';
import type { CommittedEnvelope } from './committed-envelope';
import type { EvictedItems } from './session-types';
import { ReducerError, StorageFailedError } from './errors';
import type { MiddlewareFeed } from './middleware-feed';
import type { PipelineStack } from './feature-layers';
import type { SliceRecord } from './slice-handle';

/** An event refused by an event middleware (an `InvalidEventError`, by its code: no `instanceof` across copies). */
const isRefusal = (cause: unknown): cause is RxSliceError => isRxSliceError(cause) && cause.code === 'INVALID_EVENT';

/** @internal True for the library's own event types (`rxslice.*`). */
export const isLibraryType = (type: string): boolean => type.charCodeAt(0) === 114 /* r */ && type.startsWith(RESERVED_PREFIX);

/** @internal A commit held by a batch until the outermost `batch` call publishes it. */
export interface HeldCommit {
  readonly committed: CommittedEnvelope;
  readonly records: readonly SliceRecord<any>[];
  readonly evicted: readonly EvictedItems[];
}

/**
 * @internal The bookkeeping half of a session's dispatch pipeline: `seq` numbering (and giving a
 * rejected envelope's number back), the FIFO queue of re-entrant dispatches, the drain loop,
 * which envelope the top-level `dispatch` waits for, batches, and the shared-log hand-off.
 * {@link SessionCore} extends it with the other half: accepting events, reducing an envelope into
 * every listening slice and committing them all or none.
 *
 * A class (not closures) for the reason given at `SessionCore`: its methods are optimized once for
 * every live session.
 */
export abstract class SessionQueue {
  readonly events$ = new Subject<Envelope>();
  readonly errors$ = new Subject<RxSliceError>();
  /** Snapshots of restored events not reduced yet, by `seq`. */
  readonly restoring = new Map<number, Snapshot>();
  /**
   * The snapshot of the restored event being processed right now (a restore made while no
   * envelope is processed), and its `seq` (-1 when none): no map entry for the common case.
   */
  restoringNow: Snapshot | undefined = undefined;
  restoringNowSeq = -1;
  seq = 0;
  lastSeq = 0;
  /** True while an envelope of a shared log is processed: its `seq` is the log's, never given back. */
  logged = false;
  disposed = false;
  inReducer = false;
  busy = false;
  readonly queue: Envelope[] = [];
  /** The `seq` whose failure the top-level `dispatch` waits for (-1: none). */
  awaitedSeq = -1;
  awaitedFailure: RxSliceError | undefined = undefined;
  batchDepth = 0;
  readonly held: HeldCommit[] = [];
  /** Set when a durable storage failed (fatal): every later dispatch throws it. */
  storageFailure: StorageFailedError | undefined = undefined;
  /** Told once, when a durable storage fails (see `SessionInternals.onStorageFailure`). */
  readonly storageFailureListeners: ((error: StorageFailedError) => void)[] = [];
  /** The last envelope that entered the pipeline. */
  last: Envelope | undefined = undefined;
  /** The time of the drain in progress: what an envelope accepted while `busy` takes as `at` (see {@link SessionQueue.clock}). */
  drainAt = 0;
  /**
   * Set on the local view of a shared session (event sourcing): envelopes accepted here (their
   * `seq` is 0: the log numbers them) go to `forward`, which appends them to the shared log,
   * instead of being reduced; every envelope is reduced when it comes back from the log through
   * {@link SessionQueue.applyLogged}, in log order (docs/ARCHITECTURE.md, "Shared sessions").
   */
  forward: ((env: Envelope) => void) | undefined = undefined;
  /** The event and operator middleware, when the session has any (events first); set by `SessionCore.middleware`. */
  pipeline: MiddlewareFeed | undefined = undefined;
  /** Set when middleware was added or removed while an envelope was processed: the pipeline is rebuilt before the next one. */
  pipelineStale = false;
  /**
   * The event and operator middleware given to `createSession` and added with `session.use`, or
   * undefined while there were none (the runtime is a layer: see `PipelineLayer`).
   */
  middleware: PipelineStack | undefined = undefined;

  constructor(readonly scheduler: SchedulerLike) {}

  /**
   * The `at` of an envelope being accepted: the scheduler's time for a top-level dispatch, and
   * for a dispatch made while another envelope is processed (a follow-up from a listener, an
   * epic, an effect or a saga) the time of the drain it joins, read when that drain started.
   * One clock read per drain, as a database's `now()` is the start of its transaction: a causal
   * chain dispatched synchronously shares one time, and times never decrease.
   */
  clock(): number {
    return this.busy ? this.drainAt : this.scheduler.now();
  }

  /** Checks `event` and wraps it in the next envelope (see `SessionCore.accept`). */
  abstract accept<TEvent extends Event>(event: TEvent, meta: EnvelopeMeta | undefined, system: boolean, ownMeta?: boolean): Envelope<TEvent>;
  /** Reduces `env` into every listening slice and commits all of them, or none. */
  abstract reduce(env: Envelope): void;
  /** Publishes the commits held by a batch. */
  protected abstract publish(commits: readonly HeldCommit[]): void;

  /**
   * The operator middleware failed (threw, errored, or let through something that is not an
   * application event): the envelope being fed in is rejected (its top-level `dispatch` throws),
   * and the failure is reported on `errors$`.
   * @param pipeline - The middleware that failed (default: the pipeline in force); one replaced
   * at run time names the envelope it was fed last.
   */
  middlewareFailed(cause: unknown, kind: 'operator middleware' | 'event middleware' = 'operator middleware', pipeline: MiddlewareFeed | undefined = this.pipeline): void {
    const env = pipeline?.current ?? this.lastEnvelope();
    const awaited = pipeline?.isFeeding === true && env.seq === this.awaitedSeq;
    const reported = pipeline?.current === undefined ? env : this.releaseSeq(env);
    // An event middleware that refuses the event with an InvalidEventError (the validation
    // middleware does) rejects it with that error as it is, like the event's own schema would.
    const error = kind === 'event middleware' && isRefusal(cause) ? cause : new ReducerError(reported, '(session)', kind, cause);
    if (awaited) this.awaitedFailure = error;
    this.errors$.next(error);
  }

  /** The last envelope that entered the pipeline, or a placeholder before any. */
  lastEnvelope(): Envelope {
    return this.last ?? { seq: 0, at: this.scheduler.now(), event: { type: 'unknown', payload: undefined }, meta: {} };
  }

  /**
   * Processes an accepted envelope now, or queues it (FIFO) while another envelope is processed;
   * on the local view of a shared log, hands it to {@link SessionCore.forward} instead.
   */
  dispatchEnvelope<TEvent extends Event>(env: Envelope<TEvent>): Envelope<TEvent> {
    if (this.forward !== undefined) {
      this.forward(env);
      return env;
    }
    return this.process(env);
  }

  /** Processes `env` now, or queues it (FIFO) while another envelope is processed. */
  private process<TEvent extends Event>(env: Envelope<TEvent>): Envelope<TEvent> {
    if (this.busy) {
      this.queue.push(env);
      return env;
    }
    // Only the top-level dispatcher waits for its own envelope's outcome; failures of queued or
    // delayed envelopes are reported on errors$ alone.
    this.awaitedSeq = env.seq;
    this.awaitedFailure = undefined;
    try {
      this.drain(env);
    } finally {
      this.awaitedSeq = -1;
    }
    const failure = this.awaitedFailure;
    this.awaitedFailure = undefined;
    if (failure !== undefined) throw failure;
    return env;
  }

  /**
   * Reduces an envelope read from a shared log under its logged `seq` (above every `seq` seen so
   * far), as a top-level dispatch: throws the {@link ReducerError} when its reducers failed (the
   * event then changed nothing, in every process alike). @throws RangeError for a `seq` not above
   * the last one, or while an envelope is processed.
   */
  applyLogged(env: Envelope): void {
    this.checkNextSeq(env.seq, 'applyLogged');
    this.seq = env.seq;
    this.logged = true;
    try {
      this.process(env);
    } finally {
      this.logged = false;
    }
  }

  /**
   * Checks that `seq` may number the next envelope of a replay (a flight recording, a shared
   * log): an integer above every `seq` handed out so far, given while no envelope is processed.
   * @throws RangeError otherwise.
   */
  checkNextSeq(seq: number, operation: string): void {
    if (!Number.isSafeInteger(seq) || seq <= this.seq || this.busy || this.queue.length > 0) {
      throw new RangeError(!DEV ? codedMessage('E47', `${operation}(${seq}) at seq ${this.seq}`) : `${operation}(${seq}): the next seq must be an integer above ${this.seq}, given while no envelope is processed.`);
    }
  }

  /** Runs `first` (if any), then the queue until it is empty. */
  drain(first?: Envelope): void {
    // `first` was accepted just now, at the drain's start; else the drain starts now.
    this.drainAt = first !== undefined && !this.logged ? first.at : this.scheduler.now();
    this.busy = true;
    const queue = this.queue;
    try {
      for (let env = first ?? (queue.length > 0 ? queue.shift() : undefined); env !== undefined; env = queue.length > 0 ? queue.shift() : undefined) {
        // Middleware added or removed while the previous envelope was processed applies from this one.
        if (this.pipelineStale) this.middleware!.apply();
        this.last = env;
        if (this.events$.observed) this.events$.next(env);
        // Library events bypass the operator middleware: a restore, seed, reset or clear always
        // happens (a filter cannot drop a transaction's rollback).
        const pipeline = this.pipeline;
        if (pipeline === undefined || isLibraryType(env.event.type)) this.reduce(env);
        else pipeline.feed(env);
      }
    } finally {
      this.busy = false;
    }
  }

  /**
   * Entry point for envelopes leaving the operator middleware (possibly later, on the
   * scheduler). What leaves it is user data: anything but an envelope of an application event
   * (a forged `rxslice.*` event included) is a middleware failure.
   */
  reduceEntered(env: Envelope): void {
    let type: unknown;
    try {
      type = env !== null && typeof env === 'object' && env.event !== null && typeof env.event === 'object' ? env.event.type : undefined;
    } catch (cause) {
      this.middlewareFailed(cause);
      return;
    }
    if (typeof type !== 'string' || isLibraryType(type)) {
      this.middlewareFailed(
        typeof type === 'string'
          ? new ReservedEventTypeError(type)
          : new TypeError(!DEV ? codedMessage('E48', 'not an envelope') : 'The operator middleware emitted something that is not an envelope { seq, at, event: { type, payload }, meta }.'),
      );
      return;
    }
    if (this.busy) {
      this.reduce(env);
      return;
    }
    // An envelope leaving an asynchronous middleware was accepted earlier: its drain starts now.
    this.drainAt = this.scheduler.now();
    this.busy = true;
    try {
      this.reduce(env);
    } finally {
      this.busy = false;
    }
    if (this.queue.length > 0) this.drain();
  }

  /** Runs `fn` with notifications held; the outermost call publishes what was committed meanwhile. */
  batch<TResult>(fn: () => TResult): TResult {
    this.batchDepth++;
    try {
      return fn();
    } finally {
      this.batchDepth--;
      if (this.batchDepth === 0 && this.held.length > 0) {
        const commits = this.held.splice(0, this.held.length);
        const wasBusy = this.busy;
        if (!wasBusy) this.drainAt = this.scheduler.now();
        this.busy = true;
        try {
          this.publish(commits);
        } finally {
          this.busy = wasBusy;
        }
        if (!this.busy && this.queue.length > 0) this.drain();
      }
    }
  }

  /** The snapshot of restored event `seq` (taken: it is reduced once), or `undefined`. */
  takeRestoring(seq: number): Snapshot | undefined {
    if (seq === this.restoringNowSeq) {
      const snapshot = this.restoringNow;
      this.restoringNow = undefined;
      this.restoringNowSeq = -1;
      return snapshot;
    }
    const snapshot = this.restoring.get(seq);
    if (snapshot !== undefined) this.restoring.delete(seq);
    return snapshot;
  }

  /** Makes a storage failure fatal (once): reported on `errors$`, thrown by every later dispatch. */
  failStorage(seq: number, cause: unknown): StorageFailedError {
    if (this.storageFailure !== undefined) return this.storageFailure;
    const error = cause instanceof StorageFailedError ? cause : new StorageFailedError(seq, cause);
    this.storageFailure = error;
    this.queue.length = 0;
    if (!this.disposed) this.errors$.next(error);
    // The queued envelopes were dropped: whoever waits for one of them to commit learns it now.
    for (const listener of [...this.storageFailureListeners]) listener(error);
    return error;
  }

  /**
   * Gives back the `seq` of a rejected envelope (only committed events take one: DESIGN
   * "Envelope"): envelopes numbered after it and still waiting in the queue move down by one
   * (their objects are the library's own, made by `accept`), and the next commit takes the
   * number. Returns the envelope to report: `env` with the seq that was current (the last one
   * taken). Envelopes of a shared log keep the log's numbers; an envelope numbered after `env`
   * that is not in the queue (held by an asynchronous operator middleware) leaves the gap.
   */
  protected releaseSeq(env: Envelope): Envelope {
    const seq = env.seq;
    if (this.forward !== undefined || this.logged || seq !== this.seq - this.queuedAfter(seq) || seq <= this.lastSeq) return env;
    const queue = this.queue;
    for (let i = 0; i < queue.length; i++) {
      const q = queue[i] as Envelope;
      if (q.seq <= seq) continue;
      const snapshot = this.restoring.get(q.seq);
      if (snapshot !== undefined) {
        this.restoring.delete(q.seq);
        this.restoring.set(q.seq - 1, snapshot);
      }
      (q as { seq: number }).seq = q.seq - 1;
    }
    this.seq--;
    return { seq: this.seq, at: env.at, event: env.event, meta: env.meta };
  }

  /** How many queued envelopes carry a `seq` above `seq`. */
  private queuedAfter(seq: number): number {
    let n = 0;
    const queue = this.queue;
    for (let i = 0; i < queue.length; i++) if ((queue[i] as Envelope).seq > seq) n++;
    return n;
  }
}
