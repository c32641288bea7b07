import type { z } from 'zod';
import { codedMessage } from '../internal/coded-message';
import { DEV } from '../internal/dev';
import { RxSliceError } from '../internal/errors';
import type { EventCreator } from './event';
import { quote } from '../internal/quote';

/** Prefix reserved for the library's own events (`rxslice.slice.seeded`, `rxslice.effect.failed`, ...). */
export const RESERVED_PREFIX = 'rxslice.';

/** Thrown when user code defines or dispatches an event with the reserved `rxslice.` prefix. */
export class ReservedEventTypeError extends RxSliceError {
  override readonly name = 'ReservedEventTypeError';
  constructor(readonly eventType: string) {
    super(
      'RESERVED_EVENT_TYPE',
      !DEV ? codedMessage('E44', quote(eventType)) : `Event type ${quote(eventType)} uses the reserved ${quote(RESERVED_PREFIX)} prefix. Pick a "domain/pastTenseVerb" name such as "plan/stepAdded".`,
    );
  }
}

/**
 * Defines an event: returns a creator with `.type`, `.match` and `.schema`.
 *
 * @remarks Creating an event does not validate it; the session validates the payload
 * against `schema` when the event is dispatched (see `createSession({ validation })`), and an
 * invalid payload throws `InvalidEventError` with zod's issues, changing nothing.
 * Without a schema the payload type is `void` and the creator takes no argument; with one
 * (the second overload's `schema`, a zod schema) its output type is the payload type.
 * @param type - The event type, `domain/pastTenseVerb`. Must not start with `rxslice.`.
 * @throws {@link ReservedEventTypeError} when `type` starts with `rxslice.`.
 * @example
 * ```ts
 * const StepAdded = defineEvent('plan/stepAdded', z.object({ step: z.string() }));
 * const e = StepAdded({ step: 'write tests' }); // { type: 'plan/stepAdded', payload: { step: 'write tests' } }
 * StepAdded.match(e); // true
 * ```
 */
export function defineEvent<TType extends string>(type: TType): EventCreator<TType, void>;
export function defineEvent<TType extends string, TSchema extends z.ZodType>(
  type: TType,
  schema: TSchema,
): EventCreator<TType, z.output<TSchema>>;
export function defineEvent(type: string, schema?: z.ZodType): EventCreator<string, any> {
  if (type.startsWith(RESERVED_PREFIX)) throw new ReservedEventTypeError(type);
  return defineEventUnchecked(type, schema);
}

/** @internal Defines an event without the reserved-prefix check (for the library's own events). */
export function defineEventUnchecked<TPayload>(
  type: string,
  schema?: z.ZodType<TPayload>,
): EventCreator<string, TPayload> {
  const creator = ((payload?: TPayload) => ({ type, payload })) as unknown as EventCreator<string, TPayload>;
  Object.defineProperties(creator, {
    type: { value: type, enumerable: true },
    schema: { value: schema, enumerable: true },
    match: { value: (event: { readonly type: string }) => event.type === type },
    toString: { value: () => type },
  });
  return creator;
}
