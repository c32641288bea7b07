import type { Envelope } from '../events/envelope';
import type { Event } from '../events/event';

/** An envelope after its commit, with the slices it changed and the effects its reducers produced. */
export interface CommittedEnvelope<TEvent extends Event = Event> extends Envelope<TEvent> {
  readonly changed: readonly string[];
  readonly effects: readonly Event[];
}
