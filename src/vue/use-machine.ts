import type { ShallowRef } from 'vue';
import { machineState, type MachineState } from '../bindings/machine-state';
import { machineReader } from '../bindings/readers';
import type { MachineDefinition } from '../machines/machine-definition';
import { providedSession } from './provide-session';
import { sessionRef } from './session-ref';

/**
 * A statechart installed in the provided session (`session.install(def)`) as a read-only
 * `shallowRef` of its {@link MachineState} (`rxslice/react`'s `useMachine` shape), replaced when a
 * transition commits or the context changes.
 *
 * @remarks The state is rebuilt only for a new snapshot: events the machine ignores and events that
 * change only other slices leave the ref alone. In a template the ref unwraps:
 * `{{ door.configuration.join() }}`, `v-if="door.matches('open')"`. `can` and
 * `availableTransitions` evaluate guards when called (a guard that reads other slices is not
 * tracked). Send events with {@link useDispatch}. Unsubscribed with the effect scope.
 * @throws {@link SessionNotProvidedError}; {@link EffectScopeRequiredError};
 * {@link index!MachineNotInstalledError | MachineNotInstalledError} (code `MACHINE_NOT_INSTALLED`)
 * when `def` was not installed in the session.
 * @example
 * ```ts
 * const phase = useMachine(AgentPhases);
 * const label = computed(() => phase.value.configuration.join(' > ')); // 'idle', then 'active > planning'
 * ```
 */
export function useMachine<TContext, TEventType extends string, TStateId extends string>(
  def: MachineDefinition<TContext, TEventType, TStateId>,
): Readonly<ShallowRef<MachineState<TContext, TEventType, TStateId>>> {
  const reader = machineReader(providedSession('useMachine()'), def);
  return sessionRef('useMachine()', reader, (snapshot) => machineState(reader.machine, snapshot));
}
