import { distinctUntilChanged, map, type Observable, type Subscription } from 'rxjs';
import { defineEventUnchecked } from '../events/define-event';
import { isRxSliceError, RxSliceError } from '../internal/errors';
import type { Event } from '../events/event';
import { defineSlice } from '../slices/define-slice';
import type { Reducer, SliceDef } from '../slices/reducer';
import { none, replace, withEffects } from '../slices/slice-op';
import { SESSION_INTERNALS, type SessionInternals } from '../session/internals';
import type { Session } from '../session/create-session';
import { availableTransitions, canTransition, type AvailableTransition } from './available-transitions.js';
import { InvalidTransitionError, MachineNotInstalledError } from './errors.js';
import { eventMatches } from './event-descriptor.js';
import type { MachineDefinition } from './machine-definition.js';
import type { MachineEvent } from './machine-event.js';
import type { MachineSnapshot } from './machine-snapshot.js';
import { matches } from './matches.js';
import { toMermaid } from './to-mermaid.js';
import { advanceTime, initialTransition, transition, type TransitionResult } from './transition.js';

/**
 * Library event that fires a machine's due delayed sends (`send(..., { delayMs })`), dispatched
 * by the session's timer so that timed transitions are on the stream like every other change.
 * @remarks Dispatched on the session scheduler when the earliest pending delayed send is due;
 * its reducer fires every send due by then, in due order (then send order), each its own macrostep.
 * @example
 * ```ts
 * session.committed$.subscribe((c) => MachineTimerFired.match(c.event) && console.log(c.event.payload.machine)); // Logs: agentPhase
 * ```
 */
export const MachineTimerFired = defineEventUnchecked<{ readonly machine: string }>('rxslice.machine.timerFired');

/**
 * A machine installed in a session: its snapshot lives in a `'state'` slice, events dispatched
 * to the session drive it, and snapshots, restore and time travel cover it.
 */
export interface SessionMachine<TContext = unknown, TEventType extends string = string, TStateId extends string = string> {
  readonly definition: MachineDefinition<TContext, TEventType, TStateId>;
  /** The slice holding the snapshot (named `machine/<name>`). */
  readonly slice: SliceDef<string, MachineSnapshot<TContext, TStateId>>;
  /** The current snapshot (configuration, context, done, pending delayed sends). */
  readonly current: MachineSnapshot<TContext, TStateId>;
  /** The snapshot now and after every committed change of it. */
  readonly current$: Observable<MachineSnapshot<TContext, TStateId>>;
  /** True when `stateId` is active. */
  matches(stateId: TStateId): boolean;
  /** True when dispatching `event` now would take at least one transition. */
  canTransition(event: TEventType | MachineEvent<TEventType>): boolean;
  /** The events enabled now with their targets, in document order. */
  availableTransitions(): readonly AvailableTransition[];
  /** A Mermaid `stateDiagram-v2` of the definition. */
  toMermaid(): string;
}

interface Installed {
  readonly machine: SessionMachine<any, any, any>;
  readonly timer: Subscription;
}

const registryKey = Symbol.for('rxslice.machines');

function registry(internals: SessionInternals): Map<string, Installed> {
  let map = internals.extensions.get(registryKey) as Map<string, Installed> | undefined;
  if (map === undefined) {
    map = new Map();
    internals.extensions.set(registryKey, map);
  }
  return map;
}

/** Every event descriptor a definition's transitions listen to (`'*'` included). */
function descriptorsOf(def: MachineDefinition<any, any, any>): string[] {
  const out = new Set<string>();
  for (const state of def.states.values()) for (const t of state.transitions) for (const d of t.events) out.add(d);
  return [...out];
}

/** The event descriptors of each state's own transitions, by state id. */
function descriptorsByState(def: MachineDefinition<any, any, any>): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const [id, state] of def.states) out.set(id, [...new Set(state.transitions.flatMap((t) => t.events))]);
  return out;
}

/**
 * Installs a machine in a session (what `session.install(machine)` does): adds the state
 * slice `machine/<name>` holding its snapshot (entered at install time, its initial
 * configuration reached per SCXML 3.2 / Appendix D `enterStates`), a reducer that runs one
 * macrostep (SCXML Appendix D `macrostep`) for each dispatched event whose type matches one of
 * the machine's event descriptors (SCXML 3.12.1 token-prefix matching), and a timer on the
 * session scheduler that fires due delayed sends as `rxslice.machine.timerFired` events.
 *
 * @remarks Events the machine does not listen to leave it untouched. An event it listens to
 * but that enables no transition in the current configuration follows the definition's
 * `invalidTransitions` policy: `'throw'` makes the reducer throw `InvalidTransitionError`, so
 * the whole event is rejected (`dispatch` throws `ReducerError`, no slice changes);
 * `'report'` reports it on `errors$` and commits nothing for the machine; `'ignore'` does
 * nothing. Effects from entry/exit/transition actions are returned with the op
 * (`committed$` → `effects`), for effect handlers to run.
 * @throws {@link DuplicateSliceError} when a machine of the same name is installed already.
 * @example
 * ```ts
 * const phase = installMachine(session, AgentPhase);
 * session.dispatch(PlanStarted());
 * phase.matches('planning'); // true
 * ```
 */
export function installMachine<TContext, TEventType extends string, TStateId extends string>(
  session: Session,
  def: MachineDefinition<TContext, TEventType, TStateId>,
): SessionMachine<TContext, TEventType, TStateId> {
  const internals = session[SESSION_INTERNALS];
  const initial = initialTransition(def, { nowMs: session.scheduler.now() });
  type Snap = MachineSnapshot<TContext, TStateId>;
  const slice = defineSlice<Snap>(`machine/${def.name}`, { policy: 'state', initial: [initial.snapshot] });
  internals.addSlice(slice);
  const descriptors = descriptorsOf(def);
  const byState = descriptorsByState(def);
  /**
   * True when some active state has a transition whose descriptor matches: otherwise the event
   * enables nothing (SCXML 3.13 selectTransitions only looks at active states), and the costly
   * macrostep can be skipped.
   */
  const mayEnable = (snap: Snap, type: string): boolean => {
    for (const id of snap.configuration) if (eventMatches(byState.get(id) ?? [], type)) return true;
    return false;
  };

  const settle = (result: TransitionResult<TContext, TStateId>, previous: Snap) => {
    for (const error of result.errors) {
      internals.reportError(
        isRxSliceError(error) ? error : new RxSliceError('MACHINE_ACTION_FAILED', `Machine "${def.name}": ${String(error)}`, { cause: error }),
      );
    }
    const op = result.snapshot === previous || !result.changed && result.snapshot.delayed === previous.delayed ? none<Snap>() : replace([result.snapshot]);
    return result.effects.length > 0 ? withEffects(op, result.effects as readonly Event[]) : op;
  };

  const onEvent: Reducer<Snap> = (view, event, ctx) => {
    const snap = view.latest() as Snap;
    if (snap.done || !eventMatches(descriptors, event.type)) return none();
    if (!mayEnable(snap, event.type)) {
      if (def.invalidTransitions === 'ignore') return none();
      const error = new InvalidTransitionError(def.name, event.type, snap.configuration);
      if (def.invalidTransitions === 'throw') throw error;
      internals.reportError(error);
      return none();
    }
    const machineEvent: MachineEvent = event.payload === undefined ? { type: event.type } : { type: event.type, payload: event.payload };
    const result = transition(def, snap, machineEvent as MachineEvent<TEventType>, { nowMs: ctx.at });
    return settle(result, snap);
  };
  const onTimer: Reducer<Snap> = (view, event, ctx) => {
    if ((event.payload as { machine: string }).machine !== def.name) return none();
    const snap = view.latest() as Snap;
    return settle(advanceTime(def, snap, ctx.at), snap);
  };
  internals.addReducer(slice.name, { eventType: '*', name: `machine(${def.name})`, reducer: onEvent });
  internals.addReducer(slice.name, { eventType: MachineTimerFired.type, name: `machine(${def.name}).timer`, reducer: onTimer });

  const handle = session.slice(slice);
  // One timer per machine, re-armed whenever the earliest pending delayed send changes.
  let armed: Subscription | undefined;
  let armedDue: number | undefined;
  const timer = handle.latest$
    .pipe(
      map((snap) => snap?.delayed[0]?.dueAtMs),
      distinctUntilChanged(),
    )
    .subscribe((due) => {
      if (due === armedDue) return;
      armed?.unsubscribe();
      armedDue = due;
      armed =
        due === undefined
          ? undefined
          : session.scheduler.schedule(() => {
              armedDue = undefined;
              if (!internals.disposed) internals.dispatchSystem(MachineTimerFired({ machine: def.name }), { source: `machine/${def.name}` });
            }, Math.max(0, due - session.scheduler.now()));
    });
  internals.onDispose(() => {
    timer.unsubscribe();
    armed?.unsubscribe();
  });

  const machine: SessionMachine<TContext, TEventType, TStateId> = {
    definition: def,
    slice,
    get current() {
      return handle.latest() as Snap;
    },
    current$: handle.latest$ as Observable<Snap>,
    matches: (stateId) => matches(handle.latest() as Snap, stateId),
    canTransition: (event) => canTransition(def, handle.latest() as Snap, event),
    availableTransitions: () => availableTransitions(def, handle.latest() as Snap),
    toMermaid: () => toMermaid(def),
  };
  registry(internals).set(def.name, { machine, timer });
  return machine;
}

/**
 * The installed machine of `def` in `session` (what `session.machine(def)` answers).
 * @throws {@link MachineNotInstalledError} when it was not installed with `installMachine` / `session.install`.
 * @example
 * ```ts
 * session.machine(AgentPhase).availableTransitions(); // [{ event: 'agent/aborted', transitions: [...] }, ...]
 * ```
 */
export function sessionMachine<TContext, TEventType extends string, TStateId extends string>(
  session: Session,
  def: MachineDefinition<TContext, TEventType, TStateId>,
): SessionMachine<TContext, TEventType, TStateId> {
  const installed = registry(session[SESSION_INTERNALS]).get(def.name);
  if (installed === undefined || installed.machine.definition !== def) throw new MachineNotInstalledError(def.name);
  return installed.machine as SessionMachine<TContext, TEventType, TStateId>;
}
