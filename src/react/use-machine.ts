import { useMemo, useSyncExternalStore } from 'react';
import { machineState, type MachineState } from '../bindings/machine-state';
import { machineReader } from '../bindings/readers';
import type { MachineDefinition } from '../machines/machine-definition';
import type { CoreStore as CoreSession } from '../session/session-types';
import { useProvidedSession } from './session-context';
import { storeOf } from './store-subscription';

/**
 * A statechart installed in the provided session (`session.install(def)`), re-rendering the
 * component when its snapshot changes (a taken transition or a changed context), as
 * `@xstate/react`'s `useActor` does.
 *
 * @remarks The snapshot is the machine slice's `latest()`, the same object until a transition
 * commits; the returned object is memoized on it, so it can go into dependency lists. Events
 * the machine ignores, and events that change only other slices, do not re-render. `can` and
 * `availableTransitions` evaluate guards when called (a guard that reads other slices is not a
 * render input). Send events with {@link useDispatch}. No tearing, one subscription under
 * StrictMode, the current snapshot on the server.
 * @throws {@link SessionNotProvidedError} outside a `SessionProvider`;
 * {@link index!MachineNotInstalledError | MachineNotInstalledError} (code `MACHINE_NOT_INSTALLED`) when `def` was not installed in
 * the session.
 * @example
 * ```ts
 * function Phase() {
 *   const phase = useMachine(AgentPhases);
 *   return createElement('p', null, phase.configuration.join(' > ')); // renders "idle", then "thinking" after a prompt
 * }
 * ```
 */
export function useMachine<TContext, TEventType extends string, TStateId extends string>(
  def: MachineDefinition<TContext, TEventType, TStateId>,
): MachineState<TContext, TEventType, TStateId> {
  return useMachineIn(useProvidedSession('useMachine()'), def);
}

/** @internal {@link useMachine} on a given session. */
export function useMachineIn<TContext, TEventType extends string, TStateId extends string>(
  session: CoreSession,
  def: MachineDefinition<TContext, TEventType, TStateId>,
): MachineState<TContext, TEventType, TStateId> {
  const store = useMemo(() => {
    const reader = machineReader(session, def);
    return { machine: reader.machine, ...storeOf(reader) };
  }, [session, def]);
  const snapshot = useSyncExternalStore(store.subscribe, store.read, store.read);
  return useMemo(() => machineState(store.machine, snapshot), [store, snapshot]);
}
