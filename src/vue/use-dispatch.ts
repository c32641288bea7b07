import type { CoreStore as CoreSession } from '../session/session-types';
import type { Session } from '../store/create-session';
import { providedSession } from './provide-session';

/** What {@link useDispatch} is: the composable, and `withTypes` (Redux Toolkit's shape) for a version typed once. */
export interface UseDispatch {
  /** The provided session's `dispatch`, typed as `TSession['dispatch']`. */
  <TSession extends CoreSession = Session>(): TSession['dispatch'];
  /**
   * `useDispatch` typed for good: `export const useAppDispatch = useDispatch.withTypes<typeof session>()`,
   * whose `dispatch` accepts only the events `session` declares.
   */
  withTypes<TSession extends CoreSession>(): () => TSession['dispatch'];
}

/**
 * The provided session's `dispatch`, typed as `TSession['dispatch']`: with
 * `useDispatch<typeof session>()`, `useDispatch.withTypes<typeof session>()` or
 * {@link createSessionComposables}, an event the session does not declare is a compile error.
 *
 * @remarks The session's own function (no `this` needed), not reactive, needs no effect scope.
 * Dispatching is synchronous: when it returns, every ref of this session that changed holds its
 * new value (the DOM follows on Vue's next tick). It throws what `session.dispatch` throws
 * (`InvalidEventError`, `ReducerError`, `InvalidTransitionError`), with nothing changed.
 * @throws {@link SessionNotProvidedError} when none was provided, or outside `setup()`.
 * @example
 * ```ts
 * const dispatch = useDispatch<typeof session>();
 * const send = (text: string) => dispatch(MessageAdded({ role: 'user', text }));
 * ```
 */
export const useDispatch: UseDispatch = Object.assign(<TSession extends CoreSession = Session>(): TSession['dispatch'] => providedSession('useDispatch()').dispatch as TSession['dispatch'], {
  withTypes: <TSession extends CoreSession>() => () => providedSession('useDispatch()').dispatch as TSession['dispatch'],
});
