import type { z } from 'zod';
import { defineEvent } from '../events/define-event';
import type { Event, EventCreator } from '../events/event';
import { InvalidEffectDefinitionError } from './errors';
import type { RetryPolicy } from './retry-policy';

/** An effect request: plain data `{ type, payload }`, like an event, produced by reducers with `withEffects`. */
export type Effect<TType extends string = string, TPayload = unknown> = Event<TType, TPayload>;

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
    throw new InvalidEffectDefinitionError(type, `concurrency must be one of ${CONCURRENCY.join(', ')} (got "${String(options.concurrency)}")`);
  }
  const creator = schema === undefined ? defineEvent(type) : defineEvent(type, schema);
  Object.defineProperty(creator, 'options', { value: Object.freeze({ ...options }), enumerable: true });
  return creator as unknown as EffectDef<string, any, any>;
}
