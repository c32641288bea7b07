import { defineEventUnchecked } from '../events/define-event';

/** An error as plain data on a lifecycle event: `name`, `message` and, for rxslice errors, `code`. */
export interface ErrorInfo {
  readonly name: string;
  readonly message: string;
  readonly code?: string;
}

/** @internal Turns any thrown value into {@link ErrorInfo}. */
export function errorInfo(error: unknown): ErrorInfo {
  if (error instanceof Error) {
    const code = (error as { code?: unknown }).code;
    return typeof code === 'string' ? { name: error.name, message: error.message, code } : { name: error.name, message: error.message };
  }
  return { name: 'Error', message: String(error) };
}

/** Identifies one run of an effect: `effectId` is unique per session, in start order. */
export interface EffectRef {
  readonly effectId: number;
  readonly effectType: string;
}

/** Payload of `rxslice.effect.failed`: a failed effect (`kind: 'effect'`) or a failed epic (`kind: 'epic'`). */
export type EffectFailedPayload =
  | (EffectRef & {
      readonly kind: 'effect';
      /** Attempts made (the handler's last failure), or 0 when the effect never ran (invalid payload). */
      readonly attempts: number;
      readonly error: ErrorInfo;
    })
  | {
      readonly kind: 'epic';
      readonly epic: string;
      readonly consecutiveFailures: number;
      /** True when the epic was not resubscribed. */
      readonly stopped: boolean;
      readonly error: ErrorInfo;
    };

/**
 * The lifecycle of effects, as library events on the session stream (dispatched with
 * `meta.causationId` = the `seq` of the envelope whose reducer produced the effect and
 * `meta.source` = `effect:<type>`), so the flight of an effect can be traced and tested from
 * `committed$`:
 *
 * `started` (each attempt) → `retrying` (`attempt` = the attempt about to start, after
 * `delayMs`) → ... → `succeeded` | `failed` (→ the compensation event → `compensated`).
 * `cancelled` marks a run unsubscribed before it settled (switch, race loser, stop);
 * `dropped` an effect ignored by `'exhaust'` concurrency while its type was busy.
 *
 * @remarks Dispatched synchronously by the effect runner when the lifecycle point is reached
 * (queued behind the envelope being reduced, FIFO). Each creator's `.match` narrows an event.
 * @example
 * ```ts
 * session.committed$.pipe(filter((c) => EffectRetrying.match(c.event))).subscribe((c) => {
 *   const { effectType, attempt, delayMs } = (c.event as InferEvent<typeof EffectRetrying>).payload;
 *   console.log(`${effectType}: attempt ${attempt} in ${delayMs} ms`); // Logs: notify: attempt 2 in 100 ms
 * });
 * ```
 */
export const EffectStarted = /* @__PURE__ */ defineEventUnchecked<EffectRef & { readonly attempt: number }>('rxslice.effect.started');
/**
 * See {@link EffectStarted}: an attempt's handler completed without error (after its result,
 * if any, was mapped by `onSuccess` and dispatched).
 * @example `EffectSucceeded.match(e) && e.payload.attempt` // the attempt that succeeded, from 1
 */
export const EffectSucceeded = /* @__PURE__ */ defineEventUnchecked<EffectRef & { readonly attempt: number }>('rxslice.effect.succeeded');
/**
 * See {@link EffectStarted}. `attempt` is the attempt that will start after `delayMs`
 * (milliseconds on the session scheduler, from the retry policy, jitter included).
 * @example `EffectRetrying.match(e) && e.payload.delayMs` // e.g. 100, 200, 400 for exponential({ initialDelayMs: 100 })
 */
export const EffectRetrying = /* @__PURE__ */ defineEventUnchecked<
  EffectRef & { readonly attempt: number; readonly delayMs: number; readonly error: ErrorInfo }
>('rxslice.effect.retrying');
/**
 * See {@link EffectStarted}. Also used for epics (`kind: 'epic'`); it is reported on
 * `session.errors$` too.
 * @example `EffectFailed.match(e) && e.payload.kind === 'effect' && e.payload.attempts` // attempts made
 */
export const EffectFailed = /* @__PURE__ */ defineEventUnchecked<EffectFailedPayload>('rxslice.effect.failed');
/**
 * See {@link EffectStarted}. `compensation` is the type of the event the `compensate` callback
 * returned; dispatched once, after that event was accepted.
 * @example `EffectCompensated.match(e) && e.payload.compensation` // e.g. 'notify/abandoned'
 */
export const EffectCompensated = /* @__PURE__ */ defineEventUnchecked<EffectRef & { readonly compensation: string }>('rxslice.effect.compensated');
/**
 * See {@link EffectStarted}: the run was unsubscribed before it settled (`'switch'`, a race
 * loser, `stop()` or `dispose()`); an async handler's `ctx.signal` is aborted.
 * @example `EffectCancelled.match(e) && e.payload.effectId`
 */
export const EffectCancelled = /* @__PURE__ */ defineEventUnchecked<EffectRef & { readonly attempt: number }>('rxslice.effect.cancelled');
/**
 * See {@link EffectStarted}. Dropped effects never start, so they have no `effectId`.
 * @example `EffectDropped.match(e) && e.payload.reason` // 'exhaust'
 */
export const EffectDropped = /* @__PURE__ */ defineEventUnchecked<{ readonly effectType: string; readonly reason: 'exhaust' }>('rxslice.effect.dropped');

/**
 * @internal Every effect lifecycle event above, for code that must know all the events an
 * effect runtime can commit on its own (the watch's cursor records their `seq`). A lifecycle
 * event added to this module is added here too (test/watch checks the list against the module's exports).
 */
export const effectLifecycleEvents = [EffectStarted, EffectSucceeded, EffectRetrying, EffectFailed, EffectCompensated, EffectCancelled, EffectDropped] as const;
