/**
 * `rxslice/vue`: Vue 3 composables (Vue 3.3 and later, an optional peer).
 *
 * - {@link provideSession} provides a session to a component's descendants or to an app;
 *   {@link useSession} and {@link useDispatch} read it. {@link createSessionComposables} gives all
 *   the composables typed by one session (a misspelled event type is a compile error).
 * - {@link useSlice}, {@link useLatest}, {@link useComputed}, {@link useSelector} and
 *   {@link useMachine} return read-only `shallowRef`s set synchronously when what they hold
 *   changed (the session's readers return the same object until their version changes, so
 *   nothing is triggered otherwise), and unsubscribe when their effect scope is disposed
 *   (`onScopeDispose`: the component unmounts, or `scope.stop()`). They work in templates (refs
 *   unwrap), `computed`, `watch` and `<script setup>`.
 *
 * @example
 * ```ts
 * import { createSessionComposables } from 'rxslice/vue';
 *
 * export const { useLatest, useDispatch } = createSessionComposables(session);
 * // in setup():
 * const usage = useLatest(Usage);          // usage.value?.output: 0, then 1
 * const dispatch = useDispatch();
 * const add = () => dispatch(TokensUsed({ input: 1, output: 1 }));
 * ```
 */
export { provideSession, useSession, SessionKey, type UseSession } from './provide-session';
export { SessionNotProvidedError, EffectScopeRequiredError } from './errors';
export { useSlice, useLatest, useComputed } from './use-slice';
export { useSelector } from './use-selector';
export { useDispatch, type UseDispatch } from './use-dispatch';
export { useMachine } from './use-machine';
export { createSessionComposables, type SessionComposables } from './session-composables';
export type { MachineState } from '../bindings/machine-state';
