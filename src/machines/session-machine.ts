import { distinctUntilChanged, map, type Observable, type Subscription } from 'rxjs';
import { defineEventUnchecked } from '../events/define-event';
import { isRxSliceError, RxSliceError } from '../internal/errors';
import { withAccessors } from '../internal/fast-object';
import type { Event } from '../events/event';
import { defineSlice } from '../slices/define-slice';
import type { Reducer, SliceDef } from '../slices/reducer';
import { none, replace, withEffects } from '../slices/slice-op';
import type { SliceView } from '../slices/slice-view';
import { SESSION_INTERNALS, type EnvelopeDecider, type SessionInternals } from '../session/internals';
import type { SliceHandle } from '../session/slice-handle';
import type { CoreStore } from '../session/session-types';
import { availableTransitions, canTransition, type AvailableTransition, type AvailableTransitionsOptions } from './available-transitions.js';
import { explainTransition } from './explain-transition.js';
import { InvalidTransitionError, MachineNotInstalledError } from './errors.js';
import { eventMatches } from './event-descriptor.js';
import type { MachineDefinition } from './machine-definition.js';
import type { MachineEvent } from './machine-event.js';
import type { MachineSlices } from './machine-slices.js';
import type { MachineSnapshot } from './machine-snapshot.js';
import type { TransitionDecision } from './transition-decision.js';
import { matches } from './matches.js';
import { toMermaid } from './to-mermaid.js';
import { advanceTime, initialTransition, transitionWithPolicy, type TransitionResult } from './transition.js';
import { quote } from '../internal/quote';

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
export const MachineTimerFired = /* @__PURE__ */ defineEventUnchecked<{ readonly machine: string }>('rxslice.machine.timerFired');

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
  /**
   * True when dispatching `event` now would take at least one transition: guards see its
   * payload, the context and the session's slices as committed now. False once done.
   */
  canTransition(event: TEventType | MachineEvent<TEventType>): boolean;
  /**
   * Why dispatching `event` now would or would not take a transition: every transition that
   * matches it from the active states, with its guard's verdict and reason. See {@link explainTransition}.
   */
  explainTransition(event: TEventType | MachineEvent<TEventType>): TransitionDecision<TStateId>;
  /**
   * The events enabled now with their targets, in document order; `requiresEvent: true` marks
   * those whose guards read the payload (only `canTransition(event)` decides them). With
   * `{ includeBlocked: true }`, also the events whose guards refuse them now (`enabled: false`,
   * `blockedBy`, `reason`). See {@link availableTransitions}.
   */
  availableTransitions(options?: Pick<AvailableTransitionsOptions, 'includeBlocked'>): readonly AvailableTransition<TStateId>[];
  /** A Mermaid `stateDiagram-v2` of the definition. */
  toMermaid(): string;
}

interface Installed {
  readonly machine: SessionMachine<any, any, any>;
  readonly timer: Subscription;
}

const registryKey = Symbol.for('rxslice.machines');
/** How many event names an installed machine remembers its descriptor matches for. */
const MATCHES_KEPT = 1024;

function registry(internals: SessionInternals): Map<string, Installed> {
  let map = internals.extensions.get(registryKey) as Map<string, Installed> | undefined;
  if (map === undefined) {
    map = new Map();
    internals.extensions.set(registryKey, map);
  }
  return map;
}

/**
 * The event descriptors a definition *names*: every descriptor of its transitions (`'*'`
 * included) and the types of its declared `events`.
 */
function namedDescriptors(def: MachineDefinition<any, any, any>): string[] {
  const out = new Set<string>(def.events ?? []);
  for (const state of def.states.values()) for (const t of state.transitions) for (const d of t.events) out.add(d);
  return [...out];
}

/** A read-only view of `session`'s slices for guards and actions (one view per slice, made on first read). */
/** Where the slice views' shared accessors find their handle (see `withAccessors`: the views stay fast). */
const HANDLE = Symbol('rxslice.sliceHandle');
const VIEW_ACCESSORS: PropertyDescriptorMap = {
  isEmpty: {
    get(this: { readonly [HANDLE]: SliceHandle<unknown> }) {
      return this[HANDLE].isEmpty;
    },
    enumerable: true,
  },
  size: {
    get(this: { readonly [HANDLE]: SliceHandle<unknown> }) {
      return this[HANDLE].size;
    },
    enumerable: true,
  },
};

const MACHINE_ACCESSORS: PropertyDescriptorMap = {
  current: {
    get(this: { readonly [HANDLE]: SliceHandle<unknown> }) {
      return this[HANDLE].latest();
    },
    enumerable: true,
  },
};

function sessionSlices(session: CoreStore): MachineSlices {
  const views = new Map<SliceDef<string, any>, SliceView<unknown>>();
  return {
    get<TItem>(def: SliceDef<string, TItem>): SliceView<TItem> {
      let view = views.get(def);
      if (view === undefined) {
        const handle = session.slice(def);
        view = Object.freeze(
          withAccessors<SliceView<unknown>>(
            {
              [HANDLE]: handle,
              latest: () => handle.latest(),
          all: () => handle.all(),
              where: (predicate: (item: TItem, index: number) => boolean) => handle.where(predicate),
              at: (index: number) => handle.at(index),
            },
            VIEW_ACCESSORS,
          ),
        );
        views.set(def, view);
      }
      return view as SliceView<TItem>;
    },
  };
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
 * configuration reached per SCXML 3.2 / Appendix D `enterStates`), decides every dispatched
 * event the machine names before the slices' reducers run, runs one macrostep (SCXML Appendix D
 * `macrostep`) for each such event it takes, and arms a timer on the session scheduler that
 * fires due delayed sends as `rxslice.machine.timerFired` events.
 *
 * @remarks
 * - **Named events.** The machine names the descriptors of its transitions (SCXML 3.12.1
 *   token-prefix matching; `'*'` names every event) and the types of its declared `events`.
 *   Other events leave it untouched and are never rejected by it.
 * - **The machine decides first.** A named event is decided before any slice reducer runs,
 *   with guards and actions seeing its payload, the machine's context and the session's slices
 *   as committed before the event (`args.slices`). If it enables no transition in the current
 *   configuration, or the machine is done (a top-level final state was entered), the machine's
 *   `invalidTransitions` policy applies to the whole event:
 *   `'throw'` (default) rejects it — `dispatch` throws {@link InvalidTransitionError} itself,
 *   `errors$` reports it, no slice changes; `'report'` rejects it the same way, but `dispatch`
 *   returns normally (the error is on `errors$` only); `'ignore'` leaves the machine as it is
 *   and lets the event through to the slices (for machines that observe rather than govern).
 * - A taken event is reduced as usual; the machine's new snapshot commits with the slices'
 *   changes, all or nothing. Effects from entry/exit/transition actions are returned with the
 *   op (`committed$` → `effects`), for effect handlers to run. Errors raised by actions
 *   (`error.execution`) are reported on `errors$`.
 * @throws {@link DuplicateSliceError} when a machine of the same name is installed already.
 * @example
 * ```ts
 * const workflow = installMachine(session, PlanWorkflow);
 * session.dispatch(CreatePlan({ goal: 'ship' }));
 * workflow.matches('active'); // true
 * session.dispatch(UpdateStep({ id: 'missing', status: 'done' })); // throws InvalidTransitionError; nothing changed
 * ```
 */
export function installMachine<TContext, TEventType extends string, TStateId extends string>(
  session: CoreStore,
  def: MachineDefinition<TContext, TEventType, TStateId>,
): SessionMachine<TContext, TEventType, TStateId> {
  const internals = session[SESSION_INTERNALS];
  const slices = sessionSlices(session);
  const initial = initialTransition(def, { nowMs: session.scheduler.now(), slices });
  type Snap = MachineSnapshot<TContext, TStateId>;
  type Result = TransitionResult<TContext, TStateId>;
  const slice = defineSlice<Snap>(`machine/${def.name}`, { policy: 'state', initial: [initial.snapshot] });
  internals.addSlice(slice);
  const named = namedDescriptors(def);
  const byState = descriptorsByState(def);
  // Descriptor matches depend on the event name alone: each name is matched once (up to
  // MATCHES_KEPT names; beyond, each time), not once per event against every descriptor.
  const namedMatches = new Map<string, boolean>();
  const isNamed = (type: string): boolean => {
    let known = namedMatches.get(type);
    if (known === undefined) {
      known = eventMatches(named, type);
      if (namedMatches.size < MATCHES_KEPT) namedMatches.set(type, known);
    }
    return known;
  };
  const stateMatches = new Map<string, Map<string, boolean>>();
  /**
   * True when some active state has a transition whose descriptor matches: otherwise the event
   * enables nothing (SCXML 3.13 selectTransitions only looks at active states), and the costly
   * macrostep can be skipped.
   */
  const mayEnable = (snap: Snap, type: string): boolean => {
    for (const id of snap.configuration) {
      let matches = stateMatches.get(id);
      if (matches === undefined) stateMatches.set(id, (matches = new Map()));
      let known = matches.get(type);
      if (known === undefined) {
        known = eventMatches(byState.get(id) ?? [], type);
        if (matches.size < MATCHES_KEPT) matches.set(type, known);
      }
      if (known) return true;
    }
    return false;
  };

  const reportErrors = (result: Result) => {
    for (const error of result.errors) {
      internals.reportError(
        isRxSliceError(error) ? error : new RxSliceError('MACHINE_ACTION_FAILED', `Machine ${quote(def.name)}: ${String(error)}`, { cause: error }),
      );
    }
  };
  const settle = (result: Result, previous: Snap) => {
    reportErrors(result);
    const op = result.snapshot === previous || !result.changed && result.snapshot.delayed === previous.delayed ? none<Snap>() : replace([result.snapshot]);
    return result.effects.length > 0 ? withEffects(op, result.effects as readonly Event[]) : op;
  };

  const handle = session.slice(slice);
  const current = (): Snap => handle.latest() as Snap;
  // The decision for the envelope being reduced, handed from the decider to the reducer.
  let decided: { readonly seq: number; readonly previous: Snap; readonly result: Result } | undefined;
  const decider: EnvelopeDecider = {
    decide(env) {
      decided = undefined;
      const type = env.event.type;
      if (!isNamed(type)) return undefined;
      const snap = current();
      let result: Result | undefined;
      if (!snap.done && mayEnable(snap, type)) {
        const payload = env.event.payload;
        const machineEvent: MachineEvent = payload === undefined ? { type } : { type, payload };
        // An ignoring machine never explains a refusal: its guards' refusals are not recorded.
        result = transitionWithPolicy(def, snap, machineEvent, { nowMs: env.at, slices }, 'ignore', def.invalidTransitions !== 'ignore');
        if (result.enabled) {
          decided = { seq: env.seq, previous: snap, result };
          return undefined;
        }
      }
      if (result !== undefined) reportErrors(result); // e.g. a guard that threw (it counted as false)
      if (def.invalidTransitions === 'ignore') return undefined;
      // The refusal explains itself: which transitions matched, which guard refused and why
      // (recorded while the macrostep selected; none when no active state has a transition for it).
      return { error: new InvalidTransitionError(def.name, type, snap.configuration, snap.done, result?.considered ?? []), throws: def.invalidTransitions === 'throw' };
    },
  };
  const onEvent: Reducer<Snap> = (_view, _event, ctx) => {
    const d = decided;
    if (d === undefined || d.seq !== ctx.seq) return none();
    decided = undefined;
    return settle(d.result, d.previous);
  };
  const onTimer: Reducer<Snap> = (view, event, ctx) => {
    if ((event.payload as { machine: string }).machine !== def.name) return none();
    const snap = view.latest() as Snap;
    return settle(advanceTime(def, snap, ctx.at, { slices }), snap);
  };
  internals.addDecider(decider);
  internals.addReducer(slice.name, { eventType: '*', name: `machine(${def.name})`, reducer: onEvent });
  internals.addReducer(slice.name, { eventType: MachineTimerFired.type, name: `machine(${def.name}).timer`, reducer: onTimer });
  // The events the machine names become known to the session (docs/ARCHITECTURE.md, "Known events").
  internals.declareEvents(named, 'descriptors');

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

  const machineData: Omit<SessionMachine<TContext, TEventType, TStateId>, 'current'> & { readonly [HANDLE]: SliceHandle<unknown> } = {
    [HANDLE]: handle,
    definition: def,
    slice,
    current$: handle.latest$ as Observable<Snap>,
    matches: (stateId) => matches(handle.latest() as Snap, stateId),
    canTransition: (event) => canTransition(def, handle.latest() as Snap, event, { slices }),
    explainTransition: (event) => explainTransition(def, handle.latest() as Snap, event, { slices }),
    availableTransitions: (options = {}) => availableTransitions(def, handle.latest() as Snap, { ...options, slices }),
    toMermaid: () => toMermaid(def),
  };
  const machine = withAccessors<SessionMachine<TContext, TEventType, TStateId>>(machineData, MACHINE_ACCESSORS);
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
  session: CoreStore,
  def: MachineDefinition<TContext, TEventType, TStateId>,
): SessionMachine<TContext, TEventType, TStateId> {
  const installed = registry(session[SESSION_INTERNALS]).get(def.name);
  if (installed === undefined || installed.machine.definition !== def) throw new MachineNotInstalledError(def.name);
  return installed.machine as SessionMachine<TContext, TEventType, TStateId>;
}
