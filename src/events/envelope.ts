import type { Event } from './event';

/**
 * Metadata carried by an envelope. `correlationId` groups the events of one workflow,
 * `causationId` is the `seq` of the envelope that caused this one (set for events
 * dispatched by effects and epics), `source` names who dispatched it.
 */
export interface EnvelopeMeta {
  readonly correlationId?: string;
  readonly causationId?: number;
  readonly source?: string;
  readonly [key: string]: unknown;
}

/**
 * What flows on the session's stream: `{ seq, at, event, meta }`. `seq` is a per-session,
 * strictly increasing integer assigned when the event is accepted; `at` is the session
 * scheduler's `now()` in milliseconds at acceptance.
 */
export interface Envelope<TEvent extends Event = Event> {
  readonly seq: number;
  readonly at: number;
  readonly event: TEvent;
  readonly meta: EnvelopeMeta;
}
