import { useMemo, useSyncExternalStore } from 'react';
import type { AvailableTransition } from '../machines/available-transitions';
import type { MachineDefinition } from '../machines/machine-definition';
import type { MachineEvent } from '../machines/machine-event';
import type { MachineSnapshot } from '../machines/machine-snapshot';
import { matches } from '../machines/matches';
import { sessionMachine, type SessionMachine } from '../machines/session-machine';
import type { Session as CoreSession } from '../session/session-types';
import { useProvidedSession } from './session-context';
import { changesOf } from './store-subscription';

/** What {@link useMachine} returns: the rendered snapshot and questions about it. */
export interface MachineState<TContext, TEventType extends string, TStateId extends string> {
  /** The snapshot this render shows (the machine slice's latest item). */
  readonly snapshot: MachineSnapshot<TContext, TStateId>;
  /** Every active state id, in document order. */
  readonly configuration: readonly TStateId[];
  readonly context: TContext;
  /** True once a top-level final state was entered. */
  readonly done: boolean;
  /** True when `stateId` is active in {@link MachineState.snapshot}. */
  matches(stateId: TStateId): boolean;
  /**
   * True when dispatching `event` now would take a transition (guards see the payload and the
   * session's slices as committed at the time of the call; see `SessionMachine.canTransition`).
   */
  can(event: TEventType | MachineEvent<TEventType>): boolean;
  /**
   * The events enabled now, with their targets, in document order (see
   * `SessionMachine.availableTransitions`). Read at call time, like `can`: guards that read other
   * slices see them as committed then.
   */
  availableTransitions(): readonly AvailableTransition<TStateId>[];
  /** The installed machine itself (its definition, `current$`, `toMermaid()`). */
  readonly machine: SessionMachine<TContext, TEventType, TStateId>;
}

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
    const machine = sessionMachine(session, def);
    return { machine, subscribe: changesOf(machine.current$), read: () => machine.current };
  }, [session, def]);
  const snapshot = useSyncExternalStore(store.subscribe, store.read, store.read);
  return useMemo(() => {
    const { machine } = store;
    return {
      snapshot,
      configuration: snapshot.configuration,
      context: snapshot.context,
      done: snapshot.done,
      matches: (stateId: TStateId) => matches(snapshot, stateId),
      can: (event: TEventType | MachineEvent<TEventType>) => machine.canTransition(event),
      availableTransitions: () => machine.availableTransitions(),
      machine,
    };
  }, [store, snapshot]);
}
