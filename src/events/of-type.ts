import { filter, type OperatorFunction } from 'rxjs';
import type { AnyEventCreator, InferEvent } from './event';
import type { Envelope } from './envelope';

/**
 * RxJS operator keeping the envelopes whose event was made by one of `creators`, with the
 * event type narrowed to their union.
 *
 * @remarks Emits synchronously, in the order envelopes arrive; completes and errors with its source.
 * @example
 * ```ts
 * session.events$.pipe(ofType(StepAdded)).subscribe((env) => console.log(env.event.payload.step));
 * ```
 */
export function ofType<const TCreators extends readonly AnyEventCreator[]>(
  ...creators: TCreators
): OperatorFunction<Envelope, Envelope<InferEvent<TCreators[number]>>> {
  const types = new Set(creators.map((c) => c.type));
  return filter((env): env is Envelope<InferEvent<TCreators[number]>> => types.has(env.event.type));
}
