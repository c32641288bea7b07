import { useMemo, useSyncExternalStore } from 'react';
import { itemsReader, latestReader } from '../bindings/readers';
import type { CoreStore as CoreSession } from '../session/session-types';
import type { SliceDef } from '../slices/reducer';
import { useProvidedSession } from './session-context';
import { storeOf } from './store-subscription';

/**
 * The items of a slice, re-rendering the component when they change (`readonly TItem[]`, frozen
 * unless the session was made with `freeze: false`).
 *
 * @remarks Built on `useSyncExternalStore` over `session.slice(def)`: the snapshot is
 * `handle.all()` itself, the same array until the slice's version changes, so the component
 * renders again exactly when an event changed this slice (an event that only touched other
 * slices does not re-render it), never tears under concurrent rendering, and subscribes once
 * (StrictMode's mount, unmount, mount leaves one subscription; unmounting leaves none). On the
 * server (`renderToString`) it reads the session's current items.
 * @param def - A slice of the provided session.
 * @throws {@link SessionNotProvidedError} outside a `SessionProvider`;
 * {@link index!SliceNotRegisteredError | SliceNotRegisteredError} (code `SLICE_NOT_REGISTERED`) when `def` is not one of the
 * session's slices. Both during render.
 * @example
 * ```ts
 * function MessageCount() {
 *   const messages = useSlice(Messages);
 *   return createElement('span', null, messages.length); // renders "0", then "1" after MessageAdded
 * }
 * ```
 */
export function useSlice<TItem>(def: SliceDef<string, TItem>): readonly TItem[] {
  return useSliceIn(useProvidedSession('useSlice()'), def);
}

/** @internal {@link useSlice} on a given session. */
export function useSliceIn<TItem>(session: CoreSession, def: SliceDef<string, TItem>): readonly TItem[] {
  const store = useMemo(() => storeOf(itemsReader(session, def)), [session, def]);
  return useSyncExternalStore(store.subscribe, store.read, store.read);
}

/**
 * The latest item of a slice (`undefined` when it is empty), re-rendering the component when that
 * item changes (by reference).
 *
 * @remarks The "one current value" reader for state slices (`onLatest`, `produceLatest`). The
 * snapshot is `handle.latest()`: appending to a log slice re-renders (the latest item is new);
 * evicting older items of it does not. Same guarantees as {@link useSlice}: no tearing, one
 * subscription under StrictMode, the current value on the server.
 * @throws {@link SessionNotProvidedError} outside a `SessionProvider`;
 * {@link index!SliceNotRegisteredError | SliceNotRegisteredError} when `def` is not one of the session's slices.
 * @example
 * ```ts
 * function Tokens() {
 *   const usage = useLatest(Usage); // { input: 0, output: 0 }
 *   return createElement('span', null, usage?.output); // renders "0", then "30" after TokensUsed({ input: 12, output: 30 })
 * }
 * ```
 */
export function useLatest<TItem>(def: SliceDef<string, TItem>): TItem | undefined {
  return useLatestIn(useProvidedSession('useLatest()'), def);
}

/** @internal {@link useLatest} on a given session. */
export function useLatestIn<TItem>(session: CoreSession, def: SliceDef<string, TItem>): TItem | undefined {
  const store = useMemo(() => storeOf(latestReader(session, def)), [session, def]);
  return useSyncExternalStore(store.subscribe, store.read, store.read);
}
