import type { Session as CoreSession } from '../session/session-types';
import type { Session } from '../store/create-session';
import { useProvidedSession } from './session-context';

/**
 * The provided session's `dispatch`, typed as `TSession['dispatch']` (so a session whose dispatch
 * accepts only its declared events gives a hook that does too: `useDispatch<typeof session>()`).
 *
 * @remarks The same function on every render (it never causes a re-render, and is safe in effect
 * dependency lists). Dispatching is synchronous: when it returns, the event was reduced and every
 * subscribed component was told; React batches the resulting renders. It throws what
 * `session.dispatch` throws (`InvalidEventError`, `ReducerError`, `InvalidTransitionError`), with
 * nothing changed.
 * @throws {@link SessionNotProvidedError} outside a `SessionProvider` (during render).
 * @example
 * ```ts
 * function Send() {
 *   const dispatch = useDispatch<typeof session>();
 *   return createElement('button', { onClick: () => dispatch(MessageAdded({ role: 'user', text: 'hi' })) }, 'send');
 * }
 * ```
 */
export function useDispatch<TSession extends CoreSession = Session>(): TSession['dispatch'] {
  return useProvidedSession('useDispatch()').dispatch as TSession['dispatch'];
}
