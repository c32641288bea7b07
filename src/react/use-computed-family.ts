import { useMemo, useSyncExternalStore } from 'react';
import { computedFamily } from '../computed/computed-family';
import type { ComputedFamilyDef } from '../computed/define-computed-family';
import type { CoreStore as CoreSession } from '../session/session-types';
import { useProvidedSession } from './session-context';
import { changesOf } from './store-subscription';

/**
 * The value of one member of a computed family (`defineComputedFamily`): the member for `arg`,
 * re-rendering the component when that member's value changes (Recoil's `useRecoilValue(family(arg))`,
 * Jotai's `useAtomValue(family(arg))`).
 *
 * @remarks The member is `computedFamily(session, def)(arg)`, chosen by the family's key of `arg`
 * (`def.key`, by default the argument itself for primitives and its JSON otherwise): a new
 * argument object with the same key keeps the member and its subscription; an argument with
 * another key switches to that member (the component shows its value in the same render). The
 * snapshot is the member's `latest()`, memoized on the sources' versions, so a change that only
 * moves other members does not re-render this one. While mounted the hook subscribes to the
 * member's `value$`: the member stays alive for it even when the family's LRU cache
 * (`cacheSize`) drops it. No tearing, one subscription under StrictMode, the current value on
 * the server.
 * @param def - A computed family whose sources are slices (or computed slices) of the provided session.
 * @param arg - The member's argument, as given to the family's outer `project` call.
 * @throws {@link SessionNotProvidedError} outside a `SessionProvider`;
 * {@link index!SliceNotRegisteredError | SliceNotRegisteredError} when a source slice is not one of the session's slices;
 * {@link index!ComputedError | ComputedError} when the member's `project` never succeeded. All during render.
 * @example
 * ```ts
 * const MessagesBy = defineComputedFamily('messagesBy', [Messages], (role: string) => (m) => m.filter((x) => x.role === role).length);
 * function RoleCount(props: { role: string }) {
 *   return createElement('b', null, useComputedFamily(MessagesBy, props.role)); // "0", then "1" after a message of that role
 * }
 * ```
 */
export function useComputedFamily<TArg, TValue>(def: ComputedFamilyDef<string, TArg, TValue>, arg: TArg): TValue {
  return useComputedFamilyIn(useProvidedSession('useComputedFamily()'), def, arg);
}

/** @internal {@link useComputedFamily} on a given session. */
export function useComputedFamilyIn<TArg, TValue>(session: CoreSession, def: ComputedFamilyDef<string, TArg, TValue>, arg: TArg): TValue {
  const key = def.key(arg);
  const store = useMemo(() => {
    const handle = computedFamily(session, def)(arg);
    return { subscribe: changesOf(handle.value$), read: () => handle.latest() };
    // `arg` is represented by its key: an equal argument (same key) keeps the member.
  }, [session, def, key]);
  return useSyncExternalStore(store.subscribe, store.read, store.read);
}
