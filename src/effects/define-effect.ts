import type { z } from 'zod';
import { defineEvent } from '../events/define-event';
import type { Event, EventCreator } from '../events/event';
import { InvalidEffectDefinitionError, InvalidEffectOptionsError } from './errors';
import type { RetryPolicy, RetrySpec } from './retry-policy';
import { quote } from '../internal/quote';
import { instanceOptions } from './instance-options';
import { EFFECTS_LAYER, linkLayer } from '../session/feature-layers';
import { effectsLayer } from './effects-layer';

/**
 * An effect request: plain data `{ type, payload }`, like an event, produced by reducers with
 * `withEffects`; `options`, when the creator was given some (`Fx(payload, { retry, timeoutMs })`),
 * are this instance's own run options, as plain data too.
 */
export interface Effect<TType extends string = string, TPayload = unknown> extends Event<TType, TPayload> {
  readonly options?: EffectInstanceOptions;
}

/**
 * The run options an effect instance carries (see {@link EffectDef}'s call): plain JSON data, so
 * the effect stays serializable (flight recordings, devtools, shared logs keep it as it is). Each
 * one given replaces the effect type's (`defineEffect` options) for this instance only; each one
 * left out falls back to it.
 */
export interface EffectInstanceOptions {
  /** The retry policy of this instance, as data ({@link RetryPolicy.from} reads it). */
  readonly retry?: RetrySpec;
  /** Per attempt, in ms of the session's scheduler (> 0). */
  readonly timeoutMs?: number;
}

/** What an effect creator takes as its second argument: {@link EffectInstanceOptions}, with `retry` as a policy or its spec. */
export interface EffectRunOptions {
  /** A policy made by `RetryPolicy.exponential` (with a `seed` rather than a `random` function), `.fixed` or `.none`, or its {@link RetrySpec}. */
  readonly retry?: RetryPolicy | RetrySpec;
  /** Per attempt, in ms of the session's scheduler (> 0); a late attempt fails with `EffectTimeoutError`. */
  readonly timeoutMs?: number;
}

/**
 * What happens when an effect arrives while earlier effects of the same type still run
 * (RxJS's flattening operators): `'merge'` runs them side by side (default), `'switch'`
 * cancels the running one (its signal is aborted), `'concat'` queues, `'exhaust'` drops
 * the newcomer (reported as `rxslice.effect.dropped`).
 */
export type Concurrency = 'merge' | 'switch' | 'concat' | 'exhaust';

const CONCURRENCY: readonly Concurrency[] = ['merge', 'switch', 'concat', 'exhaust'];

/** Options of {@link defineEffect}. */
export interface EffectOptions<TType extends string, TPayload, TResult> {
  /** Retries after a failed attempt. Default {@link RetryPolicy.none}. */
  readonly retry?: RetryPolicy;
  /** Per attempt, in ms of the session's scheduler; a late attempt is cancelled and fails with `EffectTimeoutError`. */
  readonly timeoutMs?: number;
  /** Default `'merge'`. */
  readonly concurrency?: Concurrency;
  /** The event dispatched once, after the last attempt failed (then `rxslice.effect.compensated`). */
  readonly compensate?: (effect: Effect<TType, TPayload>, error: unknown) => Event;
  /** Maps the handler's result to an event dispatched after `rxslice.effect.succeeded`. */
  readonly onSuccess?: (effect: Effect<TType, TPayload>, result: TResult) => Event;
}

/**
 * An effect declaration made by {@link defineEffect}: a creator of effect requests (with
 * `.type`, `.match`, `.schema` like an event creator) carrying the effect's run options.
 */
export interface EffectDef<TType extends string = string, TPayload = unknown, TResult = unknown>
  extends EventCreator<TType, TPayload> {
  /**
   * Makes an effect request; with `options`, one that carries its own retry and timeout (plain
   * data), which replace the type's for this instance (see {@link EffectRunOptions}).
   * @throws {@link InvalidEffectOptionsError} for a `timeoutMs` ≤ 0, or a `retry` that is not a
   * valid policy or spec (a policy built with a `random` function cannot travel as data: give it a `seed`).
   */
  (
    ...args: undefined extends TPayload
      ? [payload?: TPayload, options?: EffectRunOptions]
      : [payload: TPayload, options?: EffectRunOptions]
  ): Effect<TType, TPayload>;
  /** The effect type's run options; an instance's own `options` take precedence over `retry` and `timeoutMs`. */
  readonly options: EffectOptions<TType, TPayload, TResult>;
  /** Phantom field carrying the handler's result type. Always `undefined` at run time. */
  readonly Result: TResult;
}

/** Any effect declaration. */
export type AnyEffectDef = EffectDef<any, any, any>;

/** The effect type a declaration makes: `InferEffect<typeof SendEmail>`. */
export type InferEffect<TDef> = TDef extends EventCreator<infer TType, infer TPayload> ? Effect<TType, TPayload> : never;

/** The handler result type of a declaration. */
export type InferEffectResult<TDef> = TDef extends { readonly Result: infer TResult } ? TResult : never;

/**
 * Defines an effect: returns a creator of plain-data effect requests plus the options the
 * runner applies when a handler runs it (retry, timeout, concurrency, compensation, success event).
 *
 * @remarks Inert and serializable apart from its callbacks; nothing runs until a reducer
 * returns the effect with `withEffects(op, [effect])` and a handler is registered with
 * `handleEffect(session, def, handler)`. The payload is validated against `schema` when the
 * effect is run (an invalid one fails with stage `'validation'`, without calling the handler).
 * The handler's result type is inferred from `onSuccess`'s second parameter.
 * An instance may carry its own retry and timeout, `SendEmail(payload, { retry, timeoutMs })`,
 * stored on it as plain data (`effect.options`), falling back to these options for what it leaves out.
 * @param type - `domain/verb` name (`'email/send'`); must not start with `rxslice.`.
 * @param schema - Optional zod schema of the payload.
 * @param options - See {@link EffectOptions}.
 * @throws {@link ReservedEventTypeError} for a `rxslice.` type; {@link InvalidEffectDefinitionError}
 * for `timeoutMs ≤ 0` or an unknown concurrency.
 * @example
 * ```ts
 * const SendEmail = defineEffect('email/send', z.object({ to: z.string() }), {
 *   retry: RetryPolicy.exponential({ maxAttempts: 3, initialDelayMs: 100 }),
 *   timeoutMs: 5_000,
 *   compensate: (e) => EmailBounced({ to: e.payload.to }),
 * });
 * SendEmail({ to: 'a@b.c' }); // { type: 'email/send', payload: { to: 'a@b.c' } }
 * SendEmail({ to: 'vip@b.c' }, { retry: RetryPolicy.fixed(50, 5), timeoutMs: 1_000 });
 * // { type: 'email/send', payload: { to: 'vip@b.c' },
 * //   options: { retry: { kind: 'fixed', delayMs: 50, count: 5 }, timeoutMs: 1000 } }
 * ```
 */
export function defineEffect<TType extends string, TResult = unknown>(
  type: TType,
  schema?: undefined,
  options?: EffectOptions<TType, void, TResult>,
): EffectDef<TType, void, TResult>;
export function defineEffect<TType extends string, TSchema extends z.ZodType, TResult = unknown>(
  type: TType,
  schema: TSchema,
  options?: EffectOptions<TType, z.output<TSchema>, TResult>,
): EffectDef<TType, z.output<TSchema>, TResult>;
export function defineEffect(
  type: string,
  schema?: z.ZodType,
  options: EffectOptions<string, any, any> = {},
): EffectDef<string, any, any> {
  if (options.timeoutMs !== undefined && !(options.timeoutMs > 0)) {
    throw new InvalidEffectDefinitionError(type, `timeoutMs must be > 0 (got ${options.timeoutMs}); omit it for no timeout`);
  }
  if (options.concurrency !== undefined && !CONCURRENCY.includes(options.concurrency)) {
    throw new InvalidEffectDefinitionError(type, `concurrency must be one of ${CONCURRENCY.join(', ')} (got ${quote(String(options.concurrency))})`);
  }
  // Sessions run effects through the layer a definition links: the core session imports no effect runtime.
  linkLayer(EFFECTS_LAYER, effectsLayer);
  const event = schema === undefined ? defineEvent(type) : defineEvent(type, schema);
  const creator = (payload?: unknown, own?: EffectRunOptions): Effect => {
    if (own === undefined) return { type, payload };
    const checked = instanceOptions(type, own);
    return checked.retry === undefined && checked.timeoutMs === undefined ? { type, payload } : { type, payload, options: checked };
  };
  Object.defineProperties(creator, {
    type: { value: type, enumerable: true },
    schema: { value: event.schema, enumerable: true },
    match: { value: event.match },
    toString: { value: event.toString },
    options: { value: Object.freeze({ ...options }), enumerable: true },
  });
  return creator as unknown as EffectDef<string, any, any>;
}
