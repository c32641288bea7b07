import { useMemo, useRef, useSyncExternalStore } from 'react';
import { sourceReader } from '../bindings/readers';
import { select as selectFrom, type Selection } from '../bindings/selection';
import type { ComputedSource, SourceValue } from '../computed/define-computed';
import type { CoreStore as CoreSession } from '../session/session-types';
import { useProvidedSession } from './session-context';
import { changesOf } from './store-subscription';

/**
 * Part of a slice's items or of a computed slice's value, re-rendering the component only when
 * that part changed (react-redux's `useSelector`).
 *
 * @remarks `selector` runs when the source changed (a new items array or computed value, by
 * reference) or when a new `selector` function is passed; its result is kept when
 * `isEqual(previous, next)` (default `Object.is`), so a selector that builds a new object or
 * array needs an `isEqual` (a shallow comparison, say) to avoid re-rendering on every change of
 * the source. A change of another slice never runs the selector. Selectors must be pure and
 * must not dispatch. No tearing, one subscription under StrictMode, the current value on the server.
 * @param source - A slice (the selector gets its `readonly TItem[]`) or a computed slice (its value).
 * @param selector - Pure function of the source's value.
 * @param isEqual - When two selections count as the same. Default `Object.is`.
 * @throws {@link SessionNotProvidedError} outside a `SessionProvider`;
 * {@link index!SliceNotRegisteredError | SliceNotRegisteredError} when the slice (or a computed source) is not in the session;
 * whatever `selector` throws, during render.
 * @example
 * ```ts
 * function UserCount() {
 *   const users = useSelector(Messages, (m) => m.filter((x) => x.role === 'user').length);
 *   return createElement('span', null, users); // re-renders only when the count changes
 * }
 * ```
 */
export function useSelector<TSource extends ComputedSource, TSelected>(
  source: TSource,
  selector: (value: SourceValue<TSource>) => TSelected,
  isEqual: (previous: TSelected, next: TSelected) => boolean = Object.is,
): TSelected {
  return useSelectorIn(useProvidedSession('useSelector()'), source, selector, isEqual);
}

/** @internal {@link useSelector} on a given session. */
export function useSelectorIn<TSource extends ComputedSource, TSelected>(
  session: CoreSession,
  source: TSource,
  selector: (value: SourceValue<TSource>) => TSelected,
  isEqual: (previous: TSelected, next: TSelected) => boolean = Object.is,
): TSelected {
  const store = useMemo(() => sourceReader(session, source), [session, source]);
  const subscribe = useMemo(() => changesOf(store.value$), [store]);
  const last = useRef<Selection<TSelected> | undefined>(undefined);
  const select = (): TSelected => (last.current = selectFrom(last.current, store.read(), selector, isEqual)).output;
  return useSyncExternalStore(subscribe, select, select);
}
