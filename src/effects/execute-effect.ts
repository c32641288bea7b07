import {
  defaultIfEmpty,
  defer,
  finalize,
  from,
  Observable,
  retry,
  takeLast,
  tap,
  throwError,
  timeout,
  timer,
  type SchedulerLike,
} from 'rxjs';
import type { Event } from '../events/event';
import type { Envelope, EnvelopeMeta } from '../events/envelope';
import { toIssues, type RxSliceError } from '../internal/errors';
import { InvalidEventError } from '../session/errors';
import type { AnyEffectDef, Effect } from './define-effect';
import type { EffectHandler } from './effect-handler';
import { EffectCancelledError, EffectFailedError, EffectTimeoutError, type EffectFailureStage } from './errors';
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
  system(event: Event, meta: EnvelopeMeta): void;
  /** Dispatches a user event; false when the session rejected it (reported by the session or via `onRejected`). */
  user(event: Event, meta: EnvelopeMeta, onRejected: (error: unknown) => void): boolean;
  report(error: RxSliceError): void;
}

/** @internal Everything one run of a leaf effect needs. */
export interface LeafRun {
  readonly effect: Effect;
  readonly def: AnyEffectDef;
  readonly handler: EffectHandler<any, any, any>;
  readonly random: RandomSource;
  readonly deps: unknown;
  readonly effectId: number;
  readonly cause: Envelope | undefined;
  readonly scheduler: SchedulerLike;
}

/** @internal The metadata of events a run dispatches: caused by the envelope that requested the effect. */
export function effectMeta(effectType: string, cause: Envelope | undefined): EnvelopeMeta {
  const meta: { causationId?: number; correlationId?: string; source: string } = { source: `effect:${effectType}` };
  if (cause !== undefined) {
    meta.causationId = cause.seq;
    if (cause.meta.correlationId !== undefined) meta.correlationId = cause.meta.correlationId;
  }
  return meta;
}

/** One attempt: calls the handler on subscribe, aborts its signal when unsubscribed before it settled. */
function attemptOf(run: LeafRun, effect: Effect, attempt: number): Observable<unknown> {
  return new Observable<unknown>((subscriber) => {
    const controller = new AbortController();
    let settled = false;
    let output;
    try {
      output = run.handler(effect, { signal: controller.signal, attempt, deps: run.deps, effectId: run.effectId, scheduler: run.scheduler });
    } catch (error) {
      subscriber.error(error);
      return undefined;
    }
    const subscription = from(output).subscribe({
      next: (value) => subscriber.next(value),
      error: (error: unknown) => {
        settled = true;
        subscriber.error(error);
      },
      complete: () => {
        settled = true;
        subscriber.complete();
      },
    });
    return () => {
      subscription.unsubscribe();
      if (!settled) controller.abort(new EffectCancelledError(effect.type, attempt));
    };
  });
}

/**
 * @internal Runs a leaf effect with its definition's options: validation, attempts with
 * timeout, retries on the scheduler, lifecycle events, success event, compensation.
 * Emits the result once and completes, or errors with the last error (already reported).
 */
export function executeLeaf(run: LeafRun, sink: EffectSink): Observable<unknown> {
  return defer(() => {
    const { def, effectId, scheduler } = run;
    const type = run.effect.type;
    const ref = { effectId, effectType: type };
    const meta = effectMeta(type, run.cause);
    const options = def.options;
    const fail = (stage: EffectFailureStage, attempts: number, error: unknown): EffectFailedError => {
      const failure = new EffectFailedError(type, effectId, stage, attempts, error);
      sink.report(failure);
      return failure;
    };

    let effect = run.effect;
    if (def.schema !== undefined) {
      const parsed = def.schema.safeParse(effect.payload);
      if (!parsed.success) {
        const invalid = new InvalidEventError(type, toIssues(parsed.error.issues));
        sink.system(EffectFailed({ kind: 'effect', ...ref, attempts: 0, error: errorInfo(invalid) }), meta);
        return throwError(() => fail('validation', 0, invalid));
      }
      effect = { type, payload: parsed.data };
    }

    let attempt = 0;
    let settled = false;
    const attempt$ = defer(() => {
      const n = ++attempt;
      sink.system(EffectStarted({ ...ref, attempt: n }), meta);
      const result$ = attemptOf(run, effect, n).pipe(takeLast(1), defaultIfEmpty(undefined));
      const timeoutMs = options.timeoutMs;
      if (timeoutMs === undefined) return result$;
      return result$.pipe(timeout({ first: timeoutMs, scheduler, with: () => throwError(() => new EffectTimeoutError(type, timeoutMs, n)) }));
    });

    const policy = options.retry ?? RetryPolicy.none;
    return attempt$.pipe(
      retry({
        count: policy.maxAttempts - 1,
        delay: (error: unknown, retryCount: number) => {
          const delayMs = policy.delayMs(retryCount, run.random);
          sink.system(EffectRetrying({ ...ref, attempt: retryCount + 1, delayMs, error: errorInfo(error) }), meta);
          return timer(delayMs, scheduler);
        },
      }),
      tap({
        next: (result) => {
          settled = true;
          sink.system(EffectSucceeded({ ...ref, attempt }), meta);
          if (options.onSuccess === undefined) return;
          let success: Event;
          try {
            success = options.onSuccess(effect, result);
          } catch (error) {
            fail('onSuccess', attempt, error);
            return;
          }
          sink.user(success, meta, (error) => fail('onSuccess', attempt, error));
        },
        error: (error: unknown) => {
          settled = true;
          sink.system(EffectFailed({ kind: 'effect', ...ref, attempts: attempt, error: errorInfo(error) }), meta);
          fail('handler', attempt, error);
          if (options.compensate === undefined) return;
          let compensation: Event;
          try {
            compensation = options.compensate(effect, error);
          } catch (thrown) {
            fail('compensate', attempt, thrown);
            return;
          }
          if (sink.user(compensation, meta, (rejected) => fail('compensate', attempt, rejected))) {
            sink.system(EffectCompensated({ ...ref, compensation: compensation.type }), meta);
          }
        },
      }),
      finalize(() => {
        if (!settled && attempt > 0) sink.system(EffectCancelled({ ...ref, attempt }), meta);
      }),
    );
  });
}
