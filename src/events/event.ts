import type { z } from 'zod';

/**
 * A plain event object: `{ type, payload }`. Types follow `domain/pastTenseVerb`
 * (`'plan/stepAdded'`); the `rxslice.` prefix is reserved for the library's own events.
 */
export interface Event<TType extends string = string, TPayload = unknown> {
  readonly type: TType;
  readonly payload: TPayload;
}

/**
 * A typed event creator made by {@link defineEvent}: call it with a payload to get an
 * {@link Event}; `.type` is the literal type, `.match` a type guard, `.schema` the zod
 * schema (or `undefined` when the event carries no validated payload).
 */
export interface EventCreator<TType extends string = string, TPayload = unknown> {
  (...args: undefined extends TPayload ? [payload?: TPayload] : [payload: TPayload]): Event<TType, TPayload>;
  readonly type: TType;
  readonly schema: z.ZodType<TPayload> | undefined;
  /** Type guard: true when `event.type` is this creator's type. */
  match(event: { readonly type: string }): event is Event<TType, TPayload>;
  /** The event type, so that a creator can be used where a type string is expected. */
  toString(): TType;
}

/** The event type a creator makes: `InferEvent<typeof StepAdded>`. */
export type InferEvent<TCreator> = TCreator extends EventCreator<infer TType, infer TPayload>
  ? Event<TType, TPayload>
  : never;

/** The payload type of a creator: `InferPayload<typeof StepAdded>`. */
export type InferPayload<TCreator> = TCreator extends EventCreator<string, infer TPayload> ? TPayload : never;

/** Any event creator, for APIs that accept several kinds. */
export type AnyEventCreator = EventCreator<string, any>;
