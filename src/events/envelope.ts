import type { Event } from './event';

/**
 * Metadata carried by an envelope. `correlationId` groups the events of one workflow,
 * `causationId` is the `seq` of the envelope that caused this one (set for events
 * dispatched by effects and epics), `source` names who dispatched it.
 */
export interface EnvelopeMeta {
  /** Groups the events of one workflow. */
  readonly correlationId?: string;
  /** The `seq` of the envelope that caused this one (set for events dispatched by effects and epics). */
  readonly causationId?: number;
  /** Who dispatched the event, e.g. an effect's or epic's name. */
  readonly source?: string;
  readonly [key: string]: unknown;
}

/**
 * What flows on the session's stream: `{ seq, at, event, meta }`. `seq` is a per-session,
 * strictly increasing integer assigned when the event is accepted; `at` is the session
 * scheduler's `now()` in milliseconds at acceptance, read once per drain: an event dispatched
 * while another is being processed (a listener's, epic's, effect's or saga's follow-up) takes
 * the time its drain started, as a database's `now()` is its transaction's start. Times never
 * decrease along `seq` (with a scheduler whose clock does not go back).
 */
export interface Envelope<TEvent extends Event = Event> {
  /** Per-session, strictly increasing integer assigned when the event is accepted. */
  readonly seq: number;
  /** The session scheduler's `now()` (ms) when the event was accepted (when its drain started, for a follow-up). */
  readonly at: number;
  /** The event as dispatched (validated against its schema). */
  readonly event: TEvent;
  /** The envelope's metadata (`{}` when none was given). */
  readonly meta: EnvelopeMeta;
}
