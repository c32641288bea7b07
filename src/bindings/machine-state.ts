import type { AvailableTransition } from '../machines/available-transitions';
import type { MachineEvent } from '../machines/machine-event';
import type { MachineSnapshot } from '../machines/machine-snapshot';
import { matches } from '../machines/matches';
import type { SessionMachine } from '../machines/session-machine';

/**
 * What `useMachine` (`rxslice/react`, `rxslice/vue`) gives for one snapshot of an installed
 * statechart: the snapshot, its parts, and questions about it.
 */
export interface MachineState<TContext, TEventType extends string, TStateId extends string> {
  /** The snapshot shown (the machine slice's latest item). */
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

/** @internal The {@link MachineState} of `snapshot` (build it once per snapshot: it is a new object). */
export function machineState<TContext, TEventType extends string, TStateId extends string>(
  machine: SessionMachine<TContext, TEventType, TStateId>,
  snapshot: MachineSnapshot<TContext, TStateId>,
): MachineState<TContext, TEventType, TStateId> {
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
}
