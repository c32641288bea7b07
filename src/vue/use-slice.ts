import type { ShallowRef } from 'vue';
import { computedReader, itemsReader, latestReader } from '../bindings/readers';
import type { ComputedDef } from '../computed/define-computed';
import type { SliceDef } from '../slices/reducer';
import { providedSession } from './provide-session';
import { sessionRef } from './session-ref';

/**
 * The items of a slice as a read-only `shallowRef` (`readonly TItem[]`, frozen unless the session
 * was made with `freeze: false`), set synchronously by each committed event that changed the slice.
 *
 * @remarks The ref holds `session.slice(def).all()`, the same array until the slice's version
 * changes: templates, `computed` and `watch` that read it re-run exactly when this slice changed,
 * never for events that touched only other slices. Shallow: the items are not made reactive
 * (they are immutable; a new array replaces the old). Unsubscribes when the current effect scope is
 * disposed (`onScopeDispose`: the component unmounts, or `scope.stop()`). While rendering on the
 * server it reads the current items and does not subscribe.
 * @param def - A slice of the provided session; read once (a different slice needs another call).
 * @throws {@link SessionNotProvidedError}; {@link EffectScopeRequiredError} outside `setup()` and
 * effect scopes; {@link index!SliceNotRegisteredError | SliceNotRegisteredError} (code
 * `SLICE_NOT_REGISTERED`) when `def` is not one of the session's slices.
 * @example
 * ```ts
 * const messages = useSlice(Messages);                        // [] , then [{ role: 'user', text: 'hi' }]
 * const count = computed(() => messages.value.length);        // 0, then 1 after MessageAdded
 * ```
 */
export function useSlice<TItem>(def: SliceDef<string, TItem>): Readonly<ShallowRef<readonly TItem[]>> {
  return sessionRef('useSlice()', itemsReader(providedSession('useSlice()'), def));
}

/**
 * The latest item of a slice (`undefined` when it is empty) as a read-only `shallowRef`, set when
 * that item changed (by reference): the "one current value" reader for state slices.
 *
 * @remarks As {@link useSlice}: synchronous updates, shallow, unsubscribed with the effect scope.
 * Appending to a log slice changes it (the latest item is new); evicting older items does not.
 * @throws {@link SessionNotProvidedError}, {@link EffectScopeRequiredError},
 * {@link index!SliceNotRegisteredError | SliceNotRegisteredError} (as {@link useSlice}).
 * @example
 * ```ts
 * const usage = useLatest(Usage); // usage.value: { input: 0, output: 0 }, then { input: 12, output: 30 }
 * ```
 */
export function useLatest<TItem>(def: SliceDef<string, TItem>): Readonly<ShallowRef<TItem | undefined>> {
  return sessionRef('useLatest()', latestReader(providedSession('useLatest()'), def));
}

/**
 * The value of a computed slice (`defineComputed`) as a read-only `shallowRef`, set at most once per
 * committed event and only when the value changed (the definition's `equals`).
 *
 * @remarks Holds `computed(session, def).latest()`; while the effect scope lives the computed slice
 * is observed (recomputed glitch-free after each event that changed a source). For a derivation
 * one component alone needs, Vue's `computed(() => f(slice.value))` over {@link useSlice} does as well.
 * @throws {@link SessionNotProvidedError}; {@link EffectScopeRequiredError};
 * {@link index!SliceNotRegisteredError | SliceNotRegisteredError} when a source is not in the
 * session; {@link index!ComputedError | ComputedError} when `project` never succeeded (a later
 * failure keeps the previous value and goes to `session.errors$`).
 * @example
 * ```ts
 * const total = useComputed(TotalTokens); // total.value: 0, then 42 after TokensUsed({ input: 12, output: 30 })
 * ```
 */
export function useComputed<TValue>(def: ComputedDef<string, TValue>): Readonly<ShallowRef<TValue>> {
  return sessionRef('useComputed()', computedReader(providedSession('useComputed()'), def));
}
