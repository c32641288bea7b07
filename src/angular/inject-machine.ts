import { computed, type Signal } from '@angular/core';
import { machineReader } from '../bindings/readers';
import type { AvailableTransition } from '../machines/available-transitions';
import type { MachineDefinition } from '../machines/machine-definition';
import type { MachineEvent } from '../machines/machine-event';
import type { MachineSnapshot } from '../machines/machine-snapshot';
import { matches } from '../machines/matches';
import type { SessionMachine } from '../machines/session-machine';
import { inContext, providedSession, type InjectOptions } from './provide-session';
import { sessionSignal } from './session-signal';

/** What {@link injectMachine} returns: signals of the machine's snapshot and questions about it. */
export interface MachineSignals<TContext, TEventType extends string, TStateId extends string> {
  /** The snapshot (the machine slice's latest item): notifies when a transition commits. */
  readonly snapshot: Signal<MachineSnapshot<TContext, TStateId>>;
  /** Every active state id, in document order. */
  readonly configuration: Signal<readonly TStateId[]>;
  readonly context: Signal<TContext>;
  readonly done: Signal<boolean>;
  /** True when `stateId` is active; reads `snapshot`, so templates and `computed` track it. */
  matches(stateId: TStateId): boolean;
  /**
   * True when dispatching `event` now would take a transition. Reads `snapshot` (tracked); guards
   * that read other slices see them as committed at the call (not tracked).
   */
  can(event: TEventType | MachineEvent<TEventType>): boolean;
  /** The events enabled now, with their targets, in document order. Tracks `snapshot`, like `can`. */
  availableTransitions(): readonly AvailableTransition<TStateId>[];
  /** The installed machine itself (its definition, `current$`, `toMermaid()`). */
  readonly machine: SessionMachine<TContext, TEventType, TStateId>;
}

/**
 * A statechart installed in the provided session (`session.install(def)`) as signals
 * (`@xstate/angular`'s `useMachine` shape), updated synchronously when a transition commits.
 *
 * @remarks `snapshot` notifies only when the machine's slice changed: events the machine ignores
 * and events that touch only other slices do not. `configuration`, `context` and `done` are
 * `computed` from it. Send events with {@link injectDispatch}. Cleaned up with the injection
 * context (`DestroyRef`).
 * @throws {@link SessionNotProvidedError}; {@link index!MachineNotInstalledError | MachineNotInstalledError} when `def` is not
 * installed in the session; NG0203 outside an injection context.
 * @example
 * ```ts
 * readonly phase = injectMachine(AgentPhases);
 * readonly label = computed(() => this.phase.configuration().join(' > ')); // 'idle', then 'active > planning'
 * ```
 */
export function injectMachine<TContext, TEventType extends string, TStateId extends string>(
  def: MachineDefinition<TContext, TEventType, TStateId>,
  options?: InjectOptions,
): MachineSignals<TContext, TEventType, TStateId> {
  return inContext(injectMachine, options, () => {
    const reader = machineReader(providedSession('injectMachine()'), def);
    const { machine } = reader;
    const snapshot = sessionSignal(reader);
    return {
      snapshot,
      configuration: computed(() => snapshot().configuration),
      context: computed(() => snapshot().context),
      done: computed(() => snapshot().done),
      matches: (stateId: TStateId) => matches(snapshot(), stateId),
      can: (event: TEventType | MachineEvent<TEventType>) => (snapshot(), machine.canTransition(event)),
      availableTransitions: () => (snapshot(), machine.availableTransitions()),
      machine,
    };
  });
}
