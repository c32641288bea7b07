import type { CoreStore as CoreSession } from '../session/session-types';
import type { Session } from '../store/create-session';
import { inContext, providedSession, type InjectOptions } from './provide-session';

/**
 * The provided session's `dispatch`, typed as `TSession['dispatch']` (a session whose dispatch
 * accepts only its declared events gives a function that does too). Untyped by default (any
 * event): declare the typed injector once with
 * {@link injectDispatch.withTypes | injectDispatch.withTypes<typeof session>()} and a misspelled
 * event type is a compile error.
 *
 * @remarks The session's own function (no `this` needed). Dispatching is synchronous: when it
 * returns, every signal from this session that changed holds its new value. It throws what
 * `session.dispatch` throws, with nothing changed.
 * @throws {@link SessionNotProvidedError}; NG0203 outside an injection context.
 * @example
 * ```ts
 * const injectAppDispatch = injectDispatch.withTypes<typeof session>();
 * class Send {
 *   private readonly dispatch = injectAppDispatch();
 *   send(text: string) { this.dispatch(MessageAdded({ role: 'user', text })); }
 * }
 * ```
 */
export function injectDispatch<TSession extends CoreSession = Session>(options?: InjectOptions): TSession['dispatch'] {
  return inContext(injectDispatch, options, () => providedSession('injectDispatch()').dispatch as TSession['dispatch']);
}

/**
 * {@link injectDispatch} typed for one session type, declared once (as Redux Toolkit's
 * `useDispatch.withTypes<AppDispatch>()`): the returned function is `injectDispatch` itself,
 * typed `(options?) => TSession['dispatch']`, so an event type the session does not declare is a
 * compile error wherever it is injected.
 *
 * @typeParam TSession - The session's type, usually `typeof session` (or the return type of the
 * factory given to {@link provideSession}).
 * @returns `injectDispatch`, with its type fixed (no new function: nothing happens at run time).
 * @example
 * ```ts
 * export const injectAppDispatch = injectDispatch.withTypes<typeof session>();
 * class Send {
 *   private readonly dispatch = injectAppDispatch();
 *   send() { this.dispatch({ type: 'chat/mesageAdded', payload: { text: 'hi' } }); } // compile error: not an event of the session
 * }
 * ```
 */
injectDispatch.withTypes = function withTypes<TSession extends CoreSession>(): (options?: InjectOptions) => TSession['dispatch'] {
  return injectDispatch as (options?: InjectOptions) => TSession['dispatch'];
};
