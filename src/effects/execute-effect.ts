import {
  defaultIfEmpty,
  defer,
  EMPTY,
  map,
  Observable,
  retry,
  takeLast,
  tap,
  throwError,
  timeout,
  timer,
  type Observer,
  type SchedulerLike,
  Subscription,
  type TeardownLogic,
  type Unsubscribable,
} from 'rxjs';
import type { Event } from '../events/event';
import type { Envelope, EnvelopeMeta } from '../events/envelope';
import { toIssues, type RxSliceError } from '../internal/errors';
import { InvalidEventError } from '../session/errors';
import type { AnyEffectDef, Effect } from './define-effect';
import { instanceOptions } from './instance-options';
import type { EffectHandler } from './effect-handler';
import { EffectAttempt } from './effect-attempt';
import { EffectFailedError, EffectTimeoutError, type EffectFailureStage } from './errors';
import {
  EffectCancelled,
  EffectCompensated,
  EffectFailed,
  EffectRetrying,
  EffectStarted,
  EffectSucceeded,
  errorInfo,
} from './lifecycle-events';
import { RetryPolicy } from './retry-policy';
import type { RandomSource } from './seeded-random';

/** @internal Where a run reports: library events, user events (compensation, success) and errors. */
export interface EffectSink {
  /** Dispatches a library event; returns what the dispatch threw (the event was not recorded), else `undefined`. */
  system(event: Event, meta: EnvelopeMeta): unknown;
  /** Dispatches a user event; returns what the dispatch threw (reported by the session or via `onRejected`), else `undefined`. */
  user(event: Event, meta: EnvelopeMeta, onRejected: (error: unknown) => void): unknown;
  report(error: RxSliceError): void;
}

/** @internal Everything one run of a leaf effect needs. */
export interface LeafRun {
  readonly effect: Effect;
  /** `meta.source` of the events the run dispatches: `effect:<type>`. */
  readonly source: string;
  readonly def: AnyEffectDef;
  readonly handler: EffectHandler<any, any, any>;
  readonly random: RandomSource;
  readonly deps: unknown;
  readonly effectId: number;
  readonly cause: Envelope | undefined;
  readonly scheduler: SchedulerLike;
}

/** @internal The metadata of events a run dispatches: caused by the envelope that requested the effect. */
export function effectMeta(source: string, cause: Envelope | undefined): EnvelopeMeta {
  if (cause === undefined) return { source };
  const correlationId = cause.meta.correlationId;
  return correlationId === undefined ? { source, causationId: cause.seq } : { source, causationId: cause.seq, correlationId };
}

/**
 * @internal What a run reports its outcome to: the result once then `complete`, or `error` with
 * the last error (already reported). An RxJS `Subscriber`, or a {@link DetachedRun}.
 */
export interface RunObserver extends Observer<unknown> {
  /** True once unsubscribed: the run then reports nothing more. */
  readonly closed: boolean;
}

/**
 * @internal Starts one run of a leaf effect with its definition's options: validation, attempts
 * with timeout, retries on the scheduler, lifecycle events, success event, compensation. It
 * reports its outcome to `observer`; the returned teardown cancels the run when it has not
 * settled yet (as an Observable's subscribe function, whose subscriber it may be).
 *
 * @remarks An effect with a single attempt and no timeout (the common case) runs without RxJS
 * operators: one {@link EffectAttempt} whose output this run watches directly. Everything else
 * (retry, timeout) goes through `retry` and `timeout` on the session's scheduler. Both paths share
 * the code that dispatches the lifecycle events, the success event and the compensation, and
 * dispatch the same events in the same order at the same (virtual) time.
 */
export function startLeaf(run: LeafRun, sink: EffectSink, observer: RunObserver): TeardownLogic {
  return new LeafExecution(run, sink, observer).start();
}

/**
 * @internal Starts a run whose outcome nobody reads (an effect routed from a commit): what
 * subscribing to it and ignoring its error would do, without an Observable and its subscriber.
 * The returned subscription cancels the run; it is closed once the run settled.
 */
export function startDetachedLeaf(run: LeafRun, sink: EffectSink): Subscription {
  const detached = new DetachedRun();
  try {
    detached.add(startLeaf(run, sink, detached));
  } catch {
    // As an Observable would: a throw while starting fails the run, whose outcome nobody reads.
    detached.unsubscribe();
  }
  return detached;
}

/** The {@link RunObserver} of a detached run: drops the result, and closes when the run settled. */
class DetachedRun extends Subscription implements RunObserver {
  next(): void {}

  error(): void {
    this.unsubscribe();
  }

  complete(): void {
    this.unsubscribe();
  }
}

/** One run of a leaf effect; as an observer, it watches the single attempt of the direct path. */
class LeafExecution implements Observer<unknown>, Unsubscribable {
  private readonly meta: EnvelopeMeta;
  private effect: Effect;
  /** Attempts started so far. */
  private attempts = 0;
  /** Succeeded or failed (events dispatched): a later teardown is not a cancellation. */
  private settled = false;
  /** The direct path's attempt and its last value (the result when it completes). */
  private attempt: EffectAttempt | undefined = undefined;
  private last: unknown = undefined;
  /** The general path's subscription to its attempts under `retry`. */
  private retries: Subscription | undefined = undefined;
  /** Jitter's random source: the registration's, or a new one for a policy the instance carries. */
  private random: RandomSource;

  constructor(
    private readonly run: LeafRun,
    private readonly sink: EffectSink,
    private readonly subscriber: RunObserver,
  ) {
    this.effect = run.effect;
    this.random = run.random;
    this.meta = effectMeta(run.source, run.cause);
  }

  start(): TeardownLogic {
    const { run, sink } = this;
    const { def } = run;
    const type = this.effect.type;
    let { retry: policy, timeoutMs } = def.options;
    // The instance's own options (`Fx(payload, { retry, timeoutMs })`) replace the type's. Read
    // again here: an effect made by hand or read from JSON did not go through the creator's check.
    const own = this.effect.options;
    if (own !== undefined) {
      try {
        const checked = instanceOptions(type, own);
        if (checked.retry !== undefined) {
          policy = RetryPolicy.from(checked.retry);
          this.random = policy.createRandom();
        }
        if (checked.timeoutMs !== undefined) timeoutMs = checked.timeoutMs;
      } catch (invalid) {
        return this.invalid(invalid);
      }
    }
    if (def.schema !== undefined) {
      const parsed = def.schema.safeParse(this.effect.payload);
      if (!parsed.success) return this.invalid(new InvalidEventError(type, toIssues(parsed.error.issues)));
      this.effect = own === undefined ? { type, payload: parsed.data } : { type, payload: parsed.data, options: own };
    }
    if (timeoutMs === undefined && (policy === undefined || policy.maxAttempts <= 1)) {
      this.attempts = 1;
      sink.system(EffectStarted({ effectId: run.effectId, effectType: type, attempt: 1 }), this.meta);
      this.attempt = new EffectAttempt(this.effect, 1, this, run.deps, run.effectId, run.scheduler);
      this.attempt.start(run.handler);
    } else {
      const subscriber = this.subscriber;
      this.retries = this.withRetries(policy ?? RetryPolicy.none, timeoutMs).subscribe({
        next: (result) => subscriber.next(result),
        error: (error: unknown) => subscriber.error(error),
        complete: () => subscriber.complete(),
      });
    }
    return this;
  }

  /** The effect (its payload or its own options) is invalid: `failed` with 0 attempts, and the run errors; the handler is not called. */
  private invalid(error: unknown): undefined {
    const { run, sink } = this;
    sink.system(EffectFailed({ kind: 'effect', effectId: run.effectId, effectType: this.effect.type, attempts: 0, error: errorInfo(error) }), this.meta);
    this.subscriber.error(this.fail('validation', 0, error));
    return undefined;
  }

  /** The direct path: a value of the attempt's output (the last one is the result). */
  next(value: unknown): void {
    this.last = value;
  }

  /** The direct path: the attempt failed (what `takeLast(1)` would forward, unless the run was cancelled). */
  error(error: unknown): void {
    if (this.subscriber.closed) return;
    this.failed(error);
    this.subscriber.error(error);
  }

  /** The direct path: the attempt completed; its last value, or `undefined`, is the result. */
  complete(): void {
    if (this.subscriber.closed) return;
    const result = this.last;
    this.last = undefined;
    const notRecorded = this.succeeded(result);
    if (notRecorded !== undefined) {
      this.subscriber.error(notRecorded);
      return;
    }
    this.subscriber.next(result);
    this.subscriber.complete();
  }

  /** Teardown: cancels the attempt in flight (as `finalize` would, after it), then reports `cancelled` when the run had not settled. */
  unsubscribe(): void {
    this.attempt?.unsubscribe();
    this.retries?.unsubscribe();
    if (!this.settled && this.attempts > 0) {
      this.sink.system(EffectCancelled({ effectId: this.run.effectId, effectType: this.effect.type, attempt: this.attempts }), this.meta);
    }
  }

  /** The general path: each attempt (with its timeout) under `retry`, delays on the session's scheduler. */
  private withRetries(policy: RetryPolicy, timeoutMs: number | undefined): Observable<unknown> {
    const { run, sink, meta } = this;
    const { effectId, scheduler } = run;
    const type = this.effect.type;
    const attempt$ = defer(() => {
      const n = ++this.attempts;
      sink.system(EffectStarted({ effectId, effectType: type, attempt: n }), meta);
      const result$ = new Observable<unknown>((subscriber) => {
        const attempt = new EffectAttempt(this.effect, n, subscriber, run.deps, effectId, scheduler);
        attempt.start(run.handler);
        return attempt;
      }).pipe(takeLast(1), defaultIfEmpty(undefined));
      if (timeoutMs === undefined) return result$;
      return result$.pipe(timeout({ first: timeoutMs, scheduler, with: () => throwError(() => new EffectTimeoutError(type, timeoutMs, n)) }));
    });
    return attempt$.pipe(
      retry({
        count: policy.maxAttempts - 1,
        delay: (error: unknown, retryCount: number) => {
          if (this.subscriber.closed) return EMPTY; // cancelled while starting: see below
          const delayMs = policy.delayMs(retryCount, this.random);
          sink.system(
            EffectRetrying({ effectId, effectType: type, attempt: retryCount + 1, delayMs, error: errorInfo(error) }),
            meta,
          );
          return timer(delayMs, scheduler);
        },
      }),
      // A run cancelled while it was starting (its `started` event's subscribers unsubscribed it)
      // ignores how that attempt ends, as operators subscribed to its closed subscriber would.
      tap({ error: (error: unknown) => this.subscriber.closed || this.failed(error) }),
      // After the tap: a success the session did not record fails the run, not the handler.
      map((result) => {
        const notRecorded = this.subscriber.closed ? undefined : this.succeeded(result);
        if (notRecorded !== undefined) throw notRecorded;
        return result;
      }),
    );
  }

  /**
   * Dispatches `succeeded`, then the `onSuccess` event. Returns what the run must fail with instead
   * of reporting success (reported means recorded): the session's error when it did not take
   * `succeeded` (its storage failed: a `StorageFailedError`, which also stops every later
   * dispatch, so an earlier write of the run that failed is caught here too), or the
   * `EffectFailedError` of an `onSuccess` event that was not dispatched or not recorded.
   * `undefined` when everything was recorded.
   */
  private succeeded(result: unknown): unknown {
    this.settled = true;
    const { sink, meta } = this;
    const attempt = this.attempts;
    const notRecorded = sink.system(EffectSucceeded({ effectId: this.run.effectId, effectType: this.effect.type, attempt }), meta);
    if (notRecorded !== undefined) return notRecorded;
    const onSuccess = this.run.def.options.onSuccess;
    if (onSuccess === undefined) return undefined;
    let success: Event;
    try {
      success = onSuccess(this.effect, result);
    } catch (error) {
      return this.fail('onSuccess', attempt, error);
    }
    let failure: EffectFailedError | undefined;
    const thrown = sink.user(success, meta, (error) => (failure = this.fail('onSuccess', attempt, error)));
    if (thrown === undefined) return undefined;
    // A rejection the session reported itself (a reducer threw on it) fails the run too, not reported twice.
    return failure ?? new EffectFailedError(this.effect.type, this.run.effectId, 'onSuccess', attempt, thrown);
  }

  /** Dispatches `failed` (and reports it), then the compensation and `compensated`. */
  private failed(error: unknown): void {
    this.settled = true;
    const { sink, meta } = this;
    const { effectId } = this.run;
    const effectType = this.effect.type;
    const attempt = this.attempts;
    sink.system(EffectFailed({ kind: 'effect', effectId, effectType, attempts: attempt, error: errorInfo(error) }), meta);
    this.fail('handler', attempt, error);
    const compensate = this.run.def.options.compensate;
    if (compensate === undefined) return;
    let compensation: Event;
    try {
      compensation = compensate(this.effect, error);
    } catch (thrown) {
      this.fail('compensate', attempt, thrown);
      return;
    }
    if (sink.user(compensation, meta, (rejected) => this.fail('compensate', attempt, rejected)) === undefined) {
      sink.system(EffectCompensated({ effectId, effectType, compensation: compensation.type }), meta);
    }
  }

  /** Reports an {@link EffectFailedError} on `errors$` and returns it. */
  private fail(stage: EffectFailureStage, attempts: number, error: unknown): EffectFailedError {
    const failure = new EffectFailedError(this.effect.type, this.run.effectId, stage, attempts, error);
    this.sink.report(failure);
    return failure;
  }
}
