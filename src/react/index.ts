/**
 * `rxslice/react`: React bindings (React 18 and 19, an optional peer).
 *
 * - {@link createSessionHooks}`(session)` returns every hook typed by the session (a misspelled
 *   event type is a compile error); {@link useDispatch.withTypes} and {@link useSession.withTypes}
 *   type the provider's hooks once. Start there: a plain `useDispatch()` accepts any event.
 * - {@link SessionProvider} puts a session in context; {@link useSession} and {@link useDispatch} read it.
 * - {@link useSlice}, {@link useLatest}, {@link useComputed}, {@link useSelector} and
 *   {@link useMachine} read state with `useSyncExternalStore`: a component re-renders exactly when
 *   what it reads changed (the session's readers return the same object until their version
 *   changes), never tears, subscribes once under StrictMode and renders on the server.
 *
 * @example
 * ```ts
 * import { createElement } from 'react';
 * import { createSessionHooks } from 'rxslice/react';
 *
 * const { useLatest, useDispatch } = createSessionHooks(session);
 * function Usage() {
 *   const usage = useLatest(UsageSlice);
 *   const dispatch = useDispatch(); // typed: only the session's events
 *   return createElement('button', { onClick: () => dispatch(TokensUsed({ input: 1, output: 1 })) }, usage?.output);
 * }
 * createRoot(el).render(createElement(Usage)); // no provider needed (one above would win)
 * ```
 */
export { SessionProvider, useSession, type SessionProviderProps } from './session-context';
export { SessionNotProvidedError } from './errors';
export { useSlice, useLatest } from './use-slice';
export { useComputed } from './use-computed';
export { useComputedFamily } from './use-computed-family';
export { createSessionHooks, type SessionHooks } from './create-session-hooks';
export { useSelector } from './use-selector';
export { useDispatch } from './use-dispatch';
export { useMachine } from './use-machine';
export type { MachineState } from '../bindings/machine-state';
