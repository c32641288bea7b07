import { DestroyRef, inject, signal, type Signal } from '@angular/core';
import type { SessionReader } from '../bindings/readers';

/**
 * @internal A read-only signal holding `reader.read()` now and each value `reader.value$` emits after that
 * (rxslice observables emit their current value on subscribe and then once per change, the same
 * object until their version changes, so `set` with `Object.is` equality notifies only on
 * changes). Unsubscribed when the current injection context's `DestroyRef` is destroyed.
 */
export function sessionSignal<T>(reader: SessionReader<T>): Signal<T> {
  const state = signal<T>(reader.read());
  const subscription = reader.value$.subscribe((value) => state.set(value));
  inject(DestroyRef).onDestroy(() => subscription.unsubscribe());
  return state.asReadonly();
}
