import { getCurrentScope, hasInjectionContext, inject, onScopeDispose, shallowRef, ssrContextKey, type ShallowRef } from 'vue';
import type { SessionReader } from '../bindings/readers';
import { EffectScopeRequiredError } from './errors';

/**
 * @internal A `shallowRef` of `project(reader.read())`, set to `project(value)` for each later value
 * `reader.value$` emits (a value that is the same object as the last one is skipped, and a
 * `shallowRef` does not trigger on an `Object.is`-equal value), unsubscribed by `onScopeDispose`.
 * During server rendering it only reads: nothing would unsubscribe it.
 */
export function sessionRef<T, TValue = T>(caller: string, reader: SessionReader<T>, project: (value: T) => TValue = (value) => value as unknown as TValue): Readonly<ShallowRef<TValue>> {
  if (getCurrentScope() === undefined) throw new EffectScopeRequiredError(caller);
  let input = reader.read();
  const state = shallowRef(project(input));
  if (hasInjectionContext() && inject(ssrContextKey, null) !== null) return state;
  const subscription = reader.value$.subscribe((value) => {
    if (value === input) return;
    input = value;
    state.value = project(value);
  });
  onScopeDispose(() => subscription.unsubscribe());
  return state;
}
