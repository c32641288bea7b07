import type { ShallowRef } from 'vue';
import { sourceReader } from '../bindings/readers';
import { select, type Selection } from '../bindings/selection';
import type { ComputedSource, SourceValue } from '../computed/define-computed';
import { providedSession } from './provide-session';
import { sessionRef } from './session-ref';

/**
 * Part of a slice's items or of a computed slice's value as a read-only `shallowRef`, set only when
 * that part changed (react-redux's `useSelector` rule, as `rxslice/react`'s hook of that name).
 *
 * @remarks `selector` runs once now and again each time the source changed (a new items array or
 * computed value, by reference); its result replaces the ref's value unless
 * `isEqual(previous, next)` (default `Object.is`), so a selector that builds a new object or array
 * needs an `isEqual` (a shallow comparison) to keep equal selections from triggering. A change of
 * another slice never runs it. Selectors must be pure and must not dispatch. A throw on the first
 * run leaves `setup()`; a later one is reported on `session.errors$` (code `SUBSCRIBER_FAILED`):
 * the event stays committed and the ref keeps its value. Unsubscribed with the effect scope.
 * @param source - A slice (the selector gets its `readonly TItem[]`) or a computed slice (its value).
 * @param selector - Pure function of the source's value.
 * @param isEqual - When two selections count as the same. Default `Object.is`.
 * @throws {@link SessionNotProvidedError}; {@link EffectScopeRequiredError};
 * {@link index!SliceNotRegisteredError | SliceNotRegisteredError}; what `selector` throws on the first run.
 * @example
 * ```ts
 * const users = useSelector(Messages, (m) => m.filter((x) => x.role === 'user').length); // users.value: 0, then 1
 * ```
 */
export function useSelector<TSource extends ComputedSource, TSelected>(
  source: TSource,
  selector: (value: SourceValue<TSource>) => TSelected,
  isEqual: (previous: TSelected, next: TSelected) => boolean = Object.is,
): Readonly<ShallowRef<TSelected>> {
  let last: Selection<TSelected> | undefined;
  return sessionRef('useSelector()', sourceReader(providedSession('useSelector()'), source), (input) => (last = select(last, input, selector, isEqual)).output);
}
