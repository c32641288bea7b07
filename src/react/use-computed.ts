import { useMemo, useSyncExternalStore } from 'react';
import { computedReader } from '../bindings/readers';
import type { ComputedDef } from '../computed/define-computed';
import type { CoreStore as CoreSession } from '../session/session-types';
import { useProvidedSession } from './session-context';
import { storeOf } from './store-subscription';

/**
 * The value of a computed slice (`defineComputed`), re-rendering the component when it changes.
 *
 * @remarks The snapshot is `computed(session, def).latest()`: memoized on the sources' versions,
 * so it is the same object until a source changed and `project` returned a value that is not
 * `equals` to the previous one. While mounted the hook subscribes to `value$`, which keeps the
 * computed slice observed (recomputed glitch-free, at most once per committed event). No tearing,
 * one subscription under StrictMode, the current value on the server.
 * @throws {@link SessionNotProvidedError} outside a `SessionProvider`;
 * {@link index!SliceNotRegisteredError | SliceNotRegisteredError} when a source slice is not one of the session's slices;
 * {@link index!ComputedError | ComputedError} when `project` never succeeded (the value of a later failure is the
 * previous one; the failure goes to `session.errors$`).
 * @example
 * ```ts
 * const Total = defineComputed('total', [Usage], (u) => (u[0]?.input ?? 0) + (u[0]?.output ?? 0));
 * function TotalTokens() {
 *   return createElement('b', null, useComputed(Total)); // renders "0", then "42" after TokensUsed({ input: 12, output: 30 })
 * }
 * ```
 */
export function useComputed<TValue>(def: ComputedDef<string, TValue>): TValue {
  return useComputedIn(useProvidedSession('useComputed()'), def);
}

/** @internal {@link useComputed} on a given session. */
export function useComputedIn<TValue>(session: CoreSession, def: ComputedDef<string, TValue>): TValue {
  const store = useMemo(() => storeOf(computedReader(session, def)), [session, def]);
  return useSyncExternalStore(store.subscribe, store.read, store.read);
}
