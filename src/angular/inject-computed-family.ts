import type { Signal } from '@angular/core';
import { computedFamily } from '../computed/computed-family';
import type { ComputedFamilyDef } from '../computed/define-computed-family';
import { inContext, providedSession, type InjectOptions } from './provide-session';
import { sessionSignal } from './session-signal';

/**
 * The value of one member of a computed family (`defineComputedFamily`), the member for `arg`, as
 * a `Signal`: notified at most once per committed event, and only when that member's value
 * changed (a change that moves only other members does not notify it).
 *
 * @remarks Holds `computedFamily(session, def)(arg).latest()`. The argument is fixed for the
 * signal's life: for an argument that changes, inject one signal per argument or derive with
 * Angular's `computed` over {@link injectSlice}. While the injection context lives the member is
 * observed, and stays alive for the signal even when the family's LRU cache (`cacheSize`) drops
 * it; the subscription ends with the context (`DestroyRef`). Zoneless-friendly, as
 * {@link injectComputed}.
 * @param def - A computed family whose sources are slices (or computed slices) of the provided session.
 * @param arg - The member's argument, as given to the family's outer `project` call.
 * @throws {@link SessionNotProvidedError}; {@link index!SliceNotRegisteredError | SliceNotRegisteredError} when a source is not
 * in the session; {@link index!ComputedError | ComputedError} when the member's `project` never succeeded; NG0203 outside an
 * injection context.
 * @example
 * ```ts
 * const MessagesBy = defineComputedFamily('messagesBy', [Messages], (role: string) => (m) => m.filter((x) => x.role === role).length);
 * class UserCount {
 *   readonly users = injectComputedFamily(MessagesBy, 'user'); // signal: 0, then 1 after a user's MessageAdded
 * }
 * ```
 */
export function injectComputedFamily<TArg, TValue>(def: ComputedFamilyDef<string, TArg, TValue>, arg: TArg, options?: InjectOptions): Signal<TValue> {
  return inContext(injectComputedFamily, options, () => {
    const handle = computedFamily(providedSession('injectComputedFamily()'), def)(arg);
    return sessionSignal({ value$: handle.value$, read: () => handle.latest() });
  });
}
