// rxslice/testing: helpers for marble tests of whole sessions.
import { map, Observable } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import type { Event } from '../events/event';
import type { CommittedEnvelope } from '../session/committed-envelope';
import { createSession, type Session, type SessionOptions } from '../store/create-session';

/**
 * Makes a `TestScheduler` whose assertions use `assertDeepEqual` (for vitest or jest:
 * `(a, e) => expect(a).toEqual(e)`).
 * @example
 * ```ts
 * const scheduler = createTestScheduler((a, e) => expect(a).toEqual(e));
 * scheduler.run(({ expectObservable }) => { ... });
 * ```
 */
export function createTestScheduler(assertDeepEqual: (actual: unknown, expected: unknown) => void): TestScheduler {
  return new TestScheduler(assertDeepEqual);
}

/**
 * Creates a session (with effects, epics and machines, as `createSession` does) whose time is
 * the given (test) scheduler, so envelope times, windows, retries, timeouts and delayed sends
 * run in virtual time. Call it inside `scheduler.run(...)`.
 * @example
 * ```ts
 * scheduler.run(({ expectObservable }) => {
 *   const session = createMarbleSession(scheduler, { slices: [Messages] });
 *   ...
 * });
 * ```
 */
export function createMarbleSession<TDeps = unknown>(
  scheduler: TestScheduler,
  options: Omit<SessionOptions<TDeps>, 'scheduler'>,
): Session<TDeps> {
  return createSession<TDeps>({ ...options, scheduler });
}

/**
 * The committed events of a session as an observable of `event.type` strings (or of
 * `select(committed)`), for `expectObservable`. Emits synchronously after each commit.
 * @example
 * ```ts
 * expectObservable(committedEvents(session)).toBe('a 9ms b', { a: 'todo/added', b: 'todo/done' });
 * ```
 */
export function committedEvents<TValue = string>(
  session: Session,
  select: (committed: CommittedEnvelope) => TValue = (c) => c.event.type as TValue,
): Observable<TValue> {
  return session.committed$.pipe(map(select));
}

/**
 * Dispatches each value of a marble source into the session (as events), e.g. a `cold` or
 * `hot` observable of events. Returns the subscription's observable for chaining in tests.
 * @example
 * ```ts
 * dispatchFrom(session, cold('a-b', { a: Added({ text: 'x' }), b: Added({ text: 'y' }) })).subscribe();
 * ```
 */
export function dispatchFrom<TEvent extends Event>(session: Session, events$: Observable<TEvent>): Observable<TEvent> {
  return new Observable<TEvent>((subscriber) =>
    events$.subscribe({
      next: (event) => {
        session.dispatch(event);
        subscriber.next(event);
      },
      error: (err: unknown) => subscriber.error(err),
      complete: () => subscriber.complete(),
    }),
  );
}
