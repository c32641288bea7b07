import type { ComputedFamilyDef } from '../computed/define-computed-family';
import type { ComputedDef, ComputedSource, SourceValue } from '../computed/define-computed';
import type { MachineDefinition } from '../machines/machine-definition';
import type { CoreStore as CoreSession } from '../session/session-types';
import type { SliceDef } from '../slices/reducer';
import { useSessionOr } from './session-context';
import { useComputedIn } from './use-computed';
import { useComputedFamilyIn } from './use-computed-family';
import type { MachineState } from '../bindings/machine-state';
import { useMachineIn } from './use-machine';
import { useSelectorIn } from './use-selector';
import { useLatestIn, useSliceIn } from './use-slice';

/**
 * The hooks {@link createSessionHooks} returns: the `rxslice/react` hooks typed for one session
 * type `TSession`, reading that session (or, under a {@link SessionProvider}, the provided one).
 * Each has the guarantees of the hook of the same name (`useSyncExternalStore`: no tearing, one
 * subscription under StrictMode, the current state on the server).
 */
export interface SessionHooks<TSession extends CoreSession> {
  /** The session, typed `TSession` ({@link useSession}). Never re-renders by itself. */
  useSession(): TSession;
  /**
   * The session's `dispatch`, typed `TSession['dispatch']` ({@link useDispatch}): an event type
   * the session does not declare is a compile error. The same function on every render.
   */
  useDispatch(): TSession['dispatch'];
  /** The items of a slice ({@link useSlice}). */
  useSlice<TItem>(def: SliceDef<string, TItem>): readonly TItem[];
  /** The latest item of a slice, `undefined` when empty ({@link useLatest}). */
  useLatest<TItem>(def: SliceDef<string, TItem>): TItem | undefined;
  /** The value of a computed slice ({@link useComputed}). */
  useComputed<TValue>(def: ComputedDef<string, TValue>): TValue;
  /** The value of the member `arg` of a computed family ({@link useComputedFamily}). */
  useComputedFamily<TArg, TValue>(def: ComputedFamilyDef<string, TArg, TValue>, arg: TArg): TValue;
  /** Part of a slice's items or of a computed value ({@link useSelector}). */
  useSelector<TSource extends ComputedSource, TSelected>(
    source: TSource,
    selector: (value: SourceValue<TSource>) => TSelected,
    isEqual?: (previous: TSelected, next: TSelected) => boolean,
  ): TSelected;
  /** An installed statechart's snapshot and questions about it ({@link useMachine}). */
  useMachine<TContext, TEventType extends string, TStateId extends string>(
    def: MachineDefinition<TContext, TEventType, TStateId>,
  ): MachineState<TContext, TEventType, TStateId>;
}

/**
 * Hooks typed by a session, with no type argument to write (Zustand's `create` returns its
 * store's hook; Redux Toolkit's `.withTypes()` does the typing): `useDispatch()` accepts only the
 * events `session` declares, so `dispatch({ type: 'todo/addd', ... })` is a compile error, and
 * `useSession()` is typed `typeof session`.
 *
 * @remarks The hooks read `session` itself, so they work without a provider. Under a
 * {@link SessionProvider} the provided session wins (as Jotai's hooks prefer a `Provider`'s
 * store over the default one): a test or a server render can hand the same components a fresh
 * session of the same type. The hooks are built once; call `createSessionHooks` at module level
 * (not in a component) and export them. It does not own the session: dispose it yourself.
 * For the hooks of a session made per request or per test, type the provider's hooks instead:
 * {@link useDispatch.withTypes | useDispatch.withTypes<TSession>()}.
 * @param session - The session the hooks read when no provider is above them; its type types them.
 * @returns The hooks, frozen: destructure them (`export const { useDispatch, useSlice } = createSessionHooks(session)`).
 * @example
 * ```ts
 * const session = createSession({ slices: [Messages] });
 * export const { useDispatch, useSlice } = createSessionHooks(session);
 *
 * function Send() {
 *   const dispatch = useDispatch();
 *   dispatch(MessageAdded({ role: 'user', text: 'hi' }));                      // fine
 *   dispatch({ type: 'chat/mesageAdded', payload: { role: 'user', text: 'hi' } }); // compile error
 *   return createElement('span', null, useSlice(Messages).length);              // "1"
 * }
 * ```
 */
export function createSessionHooks<TSession extends CoreSession>(session: TSession): SessionHooks<TSession> {
  return Object.freeze({
    useSession: () => useSessionOr(session) as TSession,
    useDispatch: () => useSessionOr(session).dispatch as TSession['dispatch'],
    useSlice: (def) => useSliceIn(useSessionOr(session), def),
    useLatest: (def) => useLatestIn(useSessionOr(session), def),
    useComputed: (def) => useComputedIn(useSessionOr(session), def),
    useComputedFamily: (def, arg) => useComputedFamilyIn(useSessionOr(session), def, arg),
    useSelector: (source, selector, isEqual) => useSelectorIn(useSessionOr(session), source, selector, isEqual),
    useMachine: (def) => useMachineIn(useSessionOr(session), def),
  } satisfies SessionHooks<TSession>);
}
