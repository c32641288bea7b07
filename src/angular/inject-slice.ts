import type { Signal } from '@angular/core';
import { computedReader, itemsReader, latestReader } from '../bindings/readers';
import type { ComputedDef } from '../computed/define-computed';
import type { SliceDef } from '../slices/reducer';
import { inContext, providedSession, type InjectOptions } from './provide-session';
import { sessionSignal } from './session-signal';

/**
 * The items of a slice as a `Signal` (NgRx's `selectSignal`), updated synchronously by each
 * committed event that changed the slice.
 *
 * @remarks The signal holds `session.slice(def).all()`, the same array until the slice's version
 * changes, so its consumers (templates, `computed`, `effect`) are notified only by changes of
 * this slice, never by events that touched only other slices. Zoneless-friendly: a signal change
 * schedules change detection by itself. The subscription ends with the injection context
 * (`DestroyRef`: the component, or the injector of a service). Interoperates with
 * `toObservable` and `computed`.
 * @throws {@link SessionNotProvidedError} when no session was provided;
 * {@link index!SliceNotRegisteredError | SliceNotRegisteredError} when `def` is not one of the session's slices; NG0203 outside
 * an injection context (pass `{ injector }` there).
 * @example
 * ```ts
 * class MessageCount {
 *   readonly messages = injectSlice(Messages);               // [] then [{ role: 'user', text: 'hi' }]
 *   readonly count = computed(() => this.messages().length); // 0, then 1 after MessageAdded
 * }
 * ```
 */
export function injectSlice<TItem>(def: SliceDef<string, TItem>, options?: InjectOptions): Signal<readonly TItem[]> {
  return inContext(injectSlice, options, () => {
    return sessionSignal(itemsReader(providedSession('injectSlice()'), def));
  });
}

/**
 * The latest item of a slice (`undefined` when empty) as a `Signal`: the "one current value"
 * reader for state slices. Notifies when the latest item changed (by reference).
 *
 * @remarks As {@link injectSlice}: synchronous updates, zoneless-friendly, cleaned up with the
 * injection context.
 * @throws {@link SessionNotProvidedError}, {@link index!SliceNotRegisteredError | SliceNotRegisteredError}, NG0203 (as {@link injectSlice}).
 * @example
 * ```ts
 * readonly usage = injectLatest(Usage); // signal: { input: 0, output: 0 }, then { input: 12, output: 30 }
 * ```
 */
export function injectLatest<TItem>(def: SliceDef<string, TItem>, options?: InjectOptions): Signal<TItem | undefined> {
  return inContext(injectLatest, options, () => {
    return sessionSignal(latestReader(providedSession('injectLatest()'), def));
  });
}

/**
 * The value of a computed slice (`defineComputed`) as a `Signal`, notified at most once per
 * committed event and only when the value changed (`equals` of its definition).
 *
 * @remarks Holds `computed(session, def).latest()`; while the injection context lives, the
 * computed slice is observed (recomputed glitch-free after each event that changed a source).
 * For a derivation used by one component only, Angular's `computed(() => f(slice()))` over
 * {@link injectSlice} does as well.
 * @throws {@link SessionNotProvidedError}; {@link index!SliceNotRegisteredError | SliceNotRegisteredError} when a source is not
 * in the session; {@link index!ComputedError | ComputedError} when `project` never succeeded; NG0203 outside an
 * injection context.
 * @example
 * ```ts
 * readonly total = injectComputed(TotalTokens); // signal: 0, then 42
 * ```
 */
export function injectComputed<TValue>(def: ComputedDef<string, TValue>, options?: InjectOptions): Signal<TValue> {
  return inContext(injectComputed, options, () => {
    return sessionSignal(computedReader(providedSession('injectComputed()'), def));
  });
}
