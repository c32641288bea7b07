import type { AnyEventCreator, InferEvent } from './event';
import { InvalidChannelError } from './invalid-channel-error';
import { openChannel } from './channel-runtime';
import { CHANNEL_LAYER, withLayer, type ChannelLayer } from '../session/feature-layers';

export { InvalidChannelError } from './invalid-channel-error';

/** What a channel definition carries for `session.channel(def)` (see `CHANNEL_LAYER`). */
const channelLayer: ChannelLayer = { open: openChannel };

/** Options of {@link defineChannel}. */
export interface ChannelOptions {
  /**
   * How many of the channel's committed envelopes a session keeps for `replay({ fromSeq })`
   * (the newest ones; default 1,000; 0 keeps none). Per session that uses the channel.
   */
  readonly replayBuffer?: number;
}

/**
 * A typed channel: a named set of event types (Proposal 8). Inert; `session.channel(def)` opens
 * it on a session. `TEvent` is the union of its events.
 */
export interface ChannelDef<TName extends string = string, TEvent extends { readonly type: string } = { readonly type: string }> {
  readonly name: TName;
  /** The event types of the channel, in declaration order (no duplicates). */
  readonly eventTypes: readonly string[];
  /** See {@link ChannelOptions.replayBuffer}. */
  readonly replayBuffer: number;
  /** True when `event` belongs to the channel (its type is one of `eventTypes`). */
  match(event: { readonly type: string }): event is TEvent;
  /**
   * The union channel: every event type of both (in order, without duplicates), named
   * `<this>|<other>`, with the larger replay buffer.
   */
  or<TOtherName extends string, TOther extends { readonly type: string }>(other: ChannelDef<TOtherName, TOther>): ChannelDef<`${TName}|${TOtherName}`, TEvent | TOther>;
  /** Phantom: the channel's event union (`typeof PlanEvents.Event`). Always `undefined` at run time. */
  readonly Event: TEvent;
}

/** Any channel. */
export type AnyChannelDef = ChannelDef<string, any>;

/** The event union of a channel: `InferChannelEvent<typeof PlanEvents>`. */
export type InferChannelEvent<TChannel> = TChannel extends ChannelDef<string, infer TEvent> ? TEvent : never;

function makeChannel(name: string, eventTypes: readonly string[], replayBuffer: number): AnyChannelDef {
  const types = new Set(eventTypes);
  const def = {
    name,
    eventTypes: Object.freeze([...eventTypes]),
    replayBuffer,
    match: (event: { readonly type: string }): event is any => event !== null && typeof event === 'object' && types.has(event.type),
    or: (other: AnyChannelDef) => {
      if (typeof other?.match !== 'function' || !Array.isArray(other.eventTypes)) throw new InvalidChannelError(name, 'or() takes a channel made by defineChannel');
      return makeChannel(`${name}|${other.name}`, [...new Set([...eventTypes, ...other.eventTypes])], Math.max(replayBuffer, other.replayBuffer));
    },
    Event: undefined,
  };
  // The channel runtime rides on the definition: a bundle without defineChannel holds none of it.
  return Object.freeze(withLayer(def, CHANNEL_LAYER, channelLayer)) as unknown as AnyChannelDef;
}

/**
 * Declares a typed channel over event creators: publishing to it accepts only its events (a
 * type error otherwise, and {@link InvalidChannelError} at run time for an untyped caller), and
 * its subscribers get events narrowed to the union. A channel is a view of the session's one
 * event stream, not a second bus: publishing is dispatching, and subscribers see committed events.
 *
 * @remarks After the typed channels of "State Management Abstractions", Proposal 8, and Go's and
 * Kotlin's typed channels; `or` builds union channels (as RxJS `merge` of the two streams, without
 * duplicates, since a channel is a filter of one ordered stream).
 * @throws {@link InvalidChannelError} for an empty name, no creators, or something that is not an
 * event creator.
 * @example
 * ```ts
 * const PlanEvents = defineChannel('plan', [PlanUpdated, PlanCompleted]);
 * const plan = session.channel(PlanEvents);
 * plan.publish(PlanUpdated({ planId: '123' }));
 * plan.subscribe((e) => console.log(e.type)); // e: PlanUpdated | PlanCompleted events
 * ```
 */
export function defineChannel<const TName extends string, const TCreators extends readonly AnyEventCreator[]>(
  name: TName,
  creators: TCreators,
  options: ChannelOptions = {},
): ChannelDef<TName, InferEvent<TCreators[number]>> {
  if (typeof name !== 'string' || name.length === 0) throw new InvalidChannelError(String(name), 'a channel needs a non-empty name');
  if (!Array.isArray(creators) || creators.length === 0) throw new InvalidChannelError(name, 'a channel needs at least one event creator');
  for (const c of creators as readonly unknown[]) {
    if (typeof c !== 'function' || typeof (c as { type?: unknown }).type !== 'string') throw new InvalidChannelError(name, 'every member must be an event creator made by defineEvent');
  }
  const replayBuffer = options.replayBuffer ?? 1000;
  if (!Number.isInteger(replayBuffer) || replayBuffer < 0) throw new InvalidChannelError(name, `replayBuffer must be an integer ≥ 0 (got ${String(replayBuffer)})`);
  return makeChannel(name, [...new Set(creators.map((c) => c.type))], replayBuffer) as ChannelDef<TName, InferEvent<TCreators[number]>>;
}
