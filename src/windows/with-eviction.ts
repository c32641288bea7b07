import type { EvictionPolicy, SliceWindowPolicy } from '../slices/window-contract';
import { codedMessage } from '../internal/coded-message';
import { DEV } from '../internal/dev';
import { quote } from '../internal/quote';
import { InvalidWindowError } from './invalid-window-error';

/**
 * `SliceWindow.withEviction`: the same window with another eviction policy. In a module of its
 * own so that `session.slice(def).configure({ eviction })` needs no window kinds (a bundle holds
 * `SliceWindow.count`, `time` and the rest only when the app uses them).
 * @throws {@link InvalidWindowError} for a window without an eviction choice, or a time window given another policy.
 * @example
 * ```ts
 * withEviction(SliceWindow.count(100), EvictionPolicy.lifo()).description; // 'count(100, lifo)'
 * ```
 */
export function withEviction<TItem>(window: SliceWindowPolicy<TItem>, eviction: EvictionPolicy<TItem>): SliceWindowPolicy<TItem> {
  if (window.withEviction === undefined) {
    throw new InvalidWindowError(
      window.description,
      !DEV
        ? codedMessage('E19', quote(eviction.description))
        : `it evicts by its own rule, so the eviction policy ${quote(eviction.description)} does not apply. Use SliceWindow.count or SliceWindow.predicate for a bound that an eviction policy chooses from.`,
    );
  }
  return window.withEviction(eviction);
}
