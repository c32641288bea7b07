import type { Observable } from 'rxjs';
import type { SessionReader } from '../bindings/readers';

/**
 * @internal A `useSyncExternalStore` subscribe function over an rxslice observable that emits its
 * current value synchronously on subscribe and then once per change: the synchronous first
 * emission is swallowed (React reads the snapshot itself), every later one calls `onChange`.
 */
export function changesOf(value$: Observable<unknown>): (onChange: () => void) => () => void {
  return (onChange) => {
    let subscribing = true;
    const subscription = value$.subscribe(() => {
      if (!subscribing) onChange();
    });
    subscribing = false;
    return () => subscription.unsubscribe();
  };
}

/** @internal A reader as `useSyncExternalStore`'s pair: `subscribe` (changes only) and `read`. */
export function storeOf<T>(reader: SessionReader<T>): { subscribe: (onChange: () => void) => () => void; read: () => T } {
  return { subscribe: changesOf(reader.value$), read: () => reader.read() };
}
