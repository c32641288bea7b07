import type { ObservableInput, SchedulerLike } from 'rxjs';
import type { Effect } from './define-effect';

/** What a handler receives besides the effect. */
export interface EffectContext<TDeps = unknown> {
  /**
   * Aborted when the attempt is cancelled: switch concurrency, a lost race, a timeout, `stop()` or `session.dispose()`.
   * Created on first read (a getter, so `{ ...ctx }` does not copy it: pass `ctx.signal` itself).
   */
  readonly signal: AbortSignal;
  /** 1 for the first attempt, 2 for the first retry, ... */
  readonly attempt: number;
  /** The session's effect dependencies (`installEffects(session, { dependencies })`). */
  readonly deps: TDeps;
  /** Identifies this run of the effect in lifecycle events (unique per session). */
  readonly effectId: number;
  /** The session's scheduler: use it for any timing inside observable handlers. */
  readonly scheduler: SchedulerLike;
}

/**
 * Runs one attempt of an effect: an async function (its promise's value is the result) or a
 * function returning an observable (its last value before completion is the result; no value
 * means `undefined`). A rejection, an error notification or a thrown error fails the attempt.
 */
export type EffectHandler<TEffect extends Effect = Effect, TResult = unknown, TDeps = unknown> = (
  effect: TEffect,
  ctx: EffectContext<TDeps>,
) => ObservableInput<TResult>;
