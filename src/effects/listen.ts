import type { AnyEventCreator, Event, InferEvent } from '../events/event';
import type { CommittedEnvelope } from '../session/committed-envelope';
import { SessionDisposedError } from '../session/errors';
import { SESSION_INTERNALS } from '../session/internals';
import type { CoreStore } from '../session/session-types';
import type { SessionReader } from '../slices/reducer';
import { effectMeta } from './execute-effect';
import { quote } from '../internal/quote';

/** What a {@link listen} handler is given besides the committed envelope. */
export interface ListenerApi extends SessionReader {
  /**
   * Dispatches a follow-up event with `meta` `{ source: <listener name>, causationId: <seq of the
   * committed envelope>, correlationId }` (the correlation id carried over when the envelope had
   * one). Called inside the handler it is queued (FIFO) and reduced after the current commit has
   * been published; a reducer failure of the follow-up is reported on `errors$` only.
   * @throws what `session.dispatch` throws for an invalid or unknown event (the handler fails then).
   */
  dispatch(event: Event): void;
}

/** Options of {@link listen}. */
export interface ListenOptions {
  /** Used in `meta.source` of the follow-ups and in errors. Default: the handler's name, else `'listener'`. */
  readonly name?: string;
}

/**
 * Calls `handler` after every commit of an event made by one of `creators`: the listener-style
 * effect of Redux Toolkit's `startListening({ actionCreator, effect })`, without an observable in
 * between. The session builds the committed envelope for these commits only (a session whose
 * only listeners are typed listeners makes none for other events).
 *
 * Emission timing: after the commit's slices were notified and its commit listeners told, just
 * before `committed$` emits the same envelope; `api.read` sees the committed state. In a
 * `batch`, when the batch publishes. Listeners are told in the order they were added.
 *
 * A handler that throws is reported on `errors$` as a `SubscriberError` (source
 * `listener "<name>"`); the commit stands and the other listeners are still told. The event
 * types listened to become known to the session (dispatching them is no `UnknownEventError`).
 *
 * @returns A function that removes the listener (idempotent). A listener removed while a commit
 * is published is still told that commit.
 * @throws `SessionDisposedError` when the session is disposed; `TypeError` when `handler` is not a
 * function or `creators` holds something that is not an event creator (nothing is listened to then).
 * @example
 * ```ts
 * const stop = listen(session, Ping, (committed, api) => api.dispatch(Pong({ id: committed.event.payload.id })));
 * session.dispatch(Ping({ id: 1 })); // committed: ping/sent (seq 1), then ping/answered (seq 2, meta.causationId 1)
 * stop();
 * ```
 */
export function listen<const TCreator extends AnyEventCreator>(
  session: CoreStore,
  creators: TCreator | readonly TCreator[],
  handler: (committed: CommittedEnvelope<InferEvent<TCreator>>, api: ListenerApi) => void,
  options: ListenOptions = {},
): () => void {
  if (typeof handler !== 'function') throw new TypeError(`listen expects a handler function, got ${typeof handler}.`);
  const internals = session[SESSION_INTERNALS];
  const name = options.name ?? (handler.name || 'listener');
  if (internals.disposed) throw new SessionDisposedError(`listen as ${quote(name)}`);
  const list = (Array.isArray(creators) ? creators : [creators]) as readonly unknown[];
  const types = new Set<string>();
  for (const creator of list) {
    const type: unknown = typeof creator === 'function' || (creator !== null && typeof creator === 'object') ? (creator as { type?: unknown }).type : undefined;
    if (typeof type !== 'string') throw new TypeError(`listen expects event creators (from defineEvent), got ${typeof creator === 'string' ? `the string ${quote(creator)}` : String(creator)}.`);
    types.add(type);
  }
  internals.declareEvents(types);

  let current: CommittedEnvelope | undefined;
  const api: ListenerApi = {
    read: (slice) => session.read(slice),
    dispatch(event) {
      internals.dispatchWithOwnMeta(event, effectMeta(name, current));
    },
  };
  return internals.onCommitted({
    types,
    onCommitted(committed) {
      const previous = current;
      current = committed;
      try {
        handler(committed as CommittedEnvelope<InferEvent<TCreator>>, api);
      } catch (error) {
        internals.reportSubscriberFailure(`listener ${quote(name)}`, error);
      } finally {
        current = previous;
      }
    },
  });
}
