import type { CoreStore as CoreSession } from '../session/session-types';
import type { Session } from '../store/create-session';
import { useProvidedSession } from './session-context';

/**
 * The provided session's `dispatch`, typed as `TSession['dispatch']` (so a session whose dispatch
 * accepts only its declared events gives a hook that does too). Untyped (`TSession` defaults to a
 * session that accepts any event): declare the typed hook once with
 * {@link useDispatch.withTypes | useDispatch.withTypes<typeof session>()}, or take every hook
 * from {@link createSessionHooks}, and a misspelled event type is a compile error.
 *
 * @remarks The same function on every render (it never causes a re-render, and is safe in effect
 * dependency lists). Dispatching is synchronous: when it returns, the event was reduced and every
 * subscribed component was told; React batches the resulting renders. It throws what
 * `session.dispatch` throws (`InvalidEventError`, `ReducerError`, `InvalidTransitionError`), with
 * nothing changed.
 * @throws {@link SessionNotProvidedError} outside a `SessionProvider` (during render).
 * @example
 * ```ts
 * const useAppDispatch = useDispatch.withTypes<typeof session>();
 * function Send() {
 *   const dispatch = useAppDispatch();
 *   return createElement('button', { onClick: () => dispatch(MessageAdded({ role: 'user', text: 'hi' })) }, 'send');
 * }
 * ```
 */
export function useDispatch<TSession extends CoreSession = Session>(): TSession['dispatch'] {
  return useProvidedSession('useDispatch()').dispatch as TSession['dispatch'];
}

/**
 * {@link useDispatch} typed for one session type, declared once (Redux Toolkit's
 * `useDispatch.withTypes<AppDispatch>()`): the returned hook is `useDispatch` itself, typed
 * `() => TSession['dispatch']`, so components call it without a type argument and an event
 * type the session does not declare is a compile error.
 *
 * @typeParam TSession - The session's type, usually `typeof session`.
 * @returns `useDispatch`, with its type fixed (no new function: nothing happens at run time).
 * @example
 * ```ts
 * export const useAppDispatch = useDispatch.withTypes<typeof session>();
 * const dispatch = useAppDispatch();
 * dispatch(TokensUsed({ input: 1, output: 2 }));
 * dispatch({ type: 'chat/tokensUsd', payload: { input: 1, output: 2 } }); // compile error: not an event of the session
 * ```
 */
useDispatch.withTypes = function withTypes<TSession extends CoreSession>(): () => TSession['dispatch'] {
  return useDispatch as () => TSession['dispatch'];
};
