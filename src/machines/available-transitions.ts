import { isGuardRefusal } from './actions.js';
import { eventMatches } from './event-descriptor.js';
import { actionArgs, type InterpreterState } from './interpreter-state.js';
import type { MachineDefinition } from './machine-definition.js';
import { toMachineEvent, type MachineEvent } from './machine-event.js';
import type { MachineSlices } from './machine-slices.js';
import type { MachineSnapshot } from './machine-snapshot.js';
import { decideTransition } from './explain-transition.js';
import { getEffectiveTargetStates, removeConflictingTransitions } from './microstep.js';
import { byDocumentOrder, isAtomic, type StateNode, type TransitionNode } from './state-node.js';
import { restore } from './restore-snapshot.js';

/** One transition the event would take: its source and effective targets (empty: targetless). */
export interface EnabledTransition<TStateId extends string = string> {
  /** The transition's name, when it has one. */
  readonly name?: string;
  readonly source: TStateId;
  readonly targets: readonly TStateId[];
  /**
   * True when this transition's guard reads the event's payload, so only the actual event
   * can decide it: it is listed as if the guard held (ask `canTransition(event)`).
   */
  readonly requiresEvent: boolean;
}

/** A transition whose guard refuses it now (listed with `availableTransitions({ includeBlocked: true })`). */
export interface BlockedTransition<TStateId extends string = string> {
  /** The transition's name, when it has one. */
  readonly name?: string;
  readonly source: TStateId;
  /** Its targets as written; empty for a targetless transition. */
  readonly targets: readonly TStateId[];
  /** The label of the guard that refuses it (its `guardLabel`, else the guard function's name). */
  readonly guard: string;
  /** The reason the guard gave with `refuse(reason)`, or the message of the error it threw. */
  readonly reason?: string;
}

/** An event name that is enabled now, or may be depending on its payload, with the transitions it would take. */
export interface AvailableTransition<TStateId extends string = string> {
  /** The normalised descriptor (`'agent/aborted'`; `'error.*'` is reported as `'error'`; `'*'`). */
  readonly event: string;
  /**
   * `true`: the event takes `transitions` now (or may, see `requiresEvent`). `false` (only with
   * `includeBlocked: true`): every transition for it from the active states is refused by its
   * guard; `blockedBy`, `reason` and `blocked` say which and why.
   */
  readonly enabled: boolean;
  /** When `enabled` is false: the label of the first guard that refuses it (`'allStepsDone'`). */
  readonly blockedBy?: string;
  /** When `enabled` is false: that guard's reason (from `refuse(reason)`), if it gave one. */
  readonly reason?: string;
  /** When `enabled` is false: every refused transition, in document order. */
  readonly blocked?: readonly BlockedTransition<TStateId>[];
  /**
   * The transitions it takes (after conflict removal, SCXML Appendix D `selectTransitions`);
   * when `requiresEvent`, the ones it takes if every guard that reads the payload holds.
   */
  readonly transitions: readonly EnabledTransition<TStateId>[];
  /**
   * `false`: the event's type alone enables `transitions` now (every guard on the way was
   * decided from the context, the configuration and the slices). `true`: a guard on the way
   * reads the event's payload, so whether the event is taken depends on the actual event —
   * `canTransition(event)` decides.
   */
  readonly requiresEvent: boolean;
}

/** Options of {@link canTransition} and {@link availableTransitions}. */
export interface IntrospectionOptions {
  /** What guards read as `slices` (an installed machine passes its session's). */
  readonly slices?: MachineSlices;
}

/** Options of {@link availableTransitions}. */
export interface AvailableTransitionsOptions extends IntrospectionOptions {
  /**
   * Also list the events whose transitions are all refused by their guards now, as entries with
   * `enabled: false`, the refusing guard (`blockedBy`), its reason and the `blocked` transitions:
   * what a UI needs to show "blocked: all steps must be done". Default false.
   */
  readonly includeBlocked?: boolean;
}

type AnyDef = MachineDefinition<unknown, string, string>;

/** Thrown by the probe event's `payload` getter: the guard reading it needs the actual event. */
const NEEDS_EVENT: unique symbol = Symbol('rxslice.machine.needsEvent');

/** An event of type `type` whose payload cannot be read (reading it throws {@link NEEDS_EVENT}). */
function probeEvent(type: string): MachineEvent {
  const event = { type };
  Object.defineProperty(event, 'payload', {
    enumerable: true,
    get() {
      throw NEEDS_EVENT;
    },
  });
  return event;
}

/** A guard's verdict on the probe event: decided (true/false, with a reason) or `'event'` when it read the payload. */
function probeGuard(it: InterpreterState, t: TransitionNode): { readonly verdict: boolean | 'event'; readonly reason?: string } {
  if (t.guard === undefined) return { verdict: true };
  try {
    const result = t.guard(actionArgs(it));
    if (result === true) return { verdict: true };
    return isGuardRefusal(result) ? { verdict: false, reason: result.reason } : { verdict: false };
  } catch (error) {
    if (error === NEEDS_EVENT) return { verdict: 'event' };
    return { verdict: false, reason: error instanceof Error ? error.message : String(error) };
  }
}

/**
 * Appendix D `selectTransitions` for an event whose type is known but whose payload is not:
 * a guard that reads the payload counts as holding (the optimistic selection) and is marked.
 * Also returns the transitions whose guards refused on the way.
 */
function probeSelect(
  def: AnyDef,
  snapshot: MachineSnapshot<unknown, string>,
  type: string,
  slices: MachineSlices | undefined,
): { readonly enabled: EnabledTransition[]; readonly blocked: BlockedTransition[] } {
  const it = restore(def, snapshot, 0, slices);
  if (!it.running) return { enabled: [], blocked: [] };
  it.currentEvent = { event: probeEvent(type), kind: 'external' };
  const selected: TransitionNode[] = [];
  const needsEvent = new Set<TransitionNode>();
  const refused = new Map<TransitionNode, string | undefined>();
  const atomic = [...it.configuration].filter(isAtomic).sort(byDocumentOrder);
  for (const state of atomic) {
    search: for (let s: StateNode | undefined = state; s !== undefined; s = s.parent) {
      for (const t of s.transitions) {
        if (t.events.length === 0 || !eventMatches(t.events, type)) continue;
        const { verdict, reason } = probeGuard(it, t);
        if (verdict === false) {
          refused.set(t, reason);
          continue;
        }
        if (verdict === 'event') needsEvent.add(t);
        if (!selected.includes(t)) selected.push(t);
        break search;
      }
    }
  }
  const enabled = selected.length > 1 ? removeConflictingTransitions(it, selected) : selected;
  const named = (t: TransitionNode) => (t.name === undefined ? {} : { name: t.name });
  return {
    enabled: enabled.map((t) => ({ ...named(t), source: t.source.id, targets: getEffectiveTargetStates(it, t).map((s) => s.id), requiresEvent: needsEvent.has(t) })),
    blocked: [...refused].map(([t, reason]) => ({
      ...named(t),
      source: t.source.id,
      targets: t.targets.map((s) => s.id),
      guard: t.guardLabel ?? 'guard',
      ...(reason === undefined ? {} : { reason }),
    })),
  };
}

/**
 * True when `event` would enable at least one transition from this snapshot: guards see the
 * event with its payload, the snapshot's context and `options.slices`; nothing runs and
 * nothing changes.
 *
 * @remarks Synchronous and pure as long as guards are. A done machine enables nothing (false
 * for every event). A throwing guard counts as false. To learn why, ask {@link explainTransition}
 * (its `enabled` is this answer).
 * @example
 * ```ts
 * canTransition(AgentPhase, snapshot, 'agent/planned'); // true in 'planning'
 * canTransition(PlanWorkflow, snapshot, UpdateStep({ id: 'nope', status: 'done' }), { slices }); // false: no such step
 * ```
 */
export function canTransition<TContext, TEventType extends string, TStateId extends string>(
  def: MachineDefinition<TContext, TEventType, TStateId>,
  snapshot: MachineSnapshot<TContext, TStateId>,
  event: NoInfer<TEventType> | MachineEvent<NoInfer<TEventType>>,
  options: IntrospectionOptions = {},
): boolean {
  return decideTransition(def as AnyDef, snapshot as MachineSnapshot<unknown, string>, toMachineEvent(event as string | MachineEvent), options.slices).enabled;
}

/**
 * The event descriptors of the active states that enable a transition now, or may depending
 * on the event's payload, in document order, each with the transitions it would take.
 *
 * @remarks Each descriptor is tried as an event of that type whose payload is unknown. Guards
 * that decide without the payload (from the context, the configuration, `slices`) are
 * evaluated: false leaves the transition out. A guard that reads `event.payload` cannot
 * decide: its transition is listed with `requiresEvent: true`, as if the guard held (and the
 * entry is marked `requiresEvent`); `canTransition(event)` with the actual event decides.
 * A done machine lists nothing. Synchronous; nothing changes. Every entry has `enabled`.
 * With `options.includeBlocked`, an event whose transitions from the active states are all
 * refused by their guards is listed too, as `enabled: false` with the first refusing guard
 * (`blockedBy`), its reason (from `refuse(reason)`, or a thrown error's message) and every
 * `blocked` transition: what a UI needs to show "blocked: all steps must be done".
 * @example
 * ```ts
 * availableTransitions(PlanWorkflow, snapshot, { slices }); // in 'active', every step done:
 * // [{ event: 'plan/stepAdded', enabled: true, requiresEvent: true, transitions: [{ source: 'active', targets: [], requiresEvent: true }] },
 * //  { event: 'plan/stepUpdated', requiresEvent: true, ... },
 * //  { event: 'plan/completed', requiresEvent: false, transitions: [{ source: 'active', targets: ['completed'], requiresEvent: false }] }, ...]
 * availableTransitions(PlanWorkflow, snapshot, { slices, includeBlocked: true }); // in 'active', a step still pending:
 * // [..., { event: 'plan/completed', enabled: false, requiresEvent: false, transitions: [], blockedBy: 'allStepsDone',
 * //         reason: 'all steps must be done (1 of 2 are not)', blocked: [{ source: 'active', targets: ['completed'], guard: 'allStepsDone', reason: '...' }] }, ...]
 * ```
 */
export function availableTransitions<TContext, TEventType extends string, TStateId extends string>(
  def: MachineDefinition<TContext, TEventType, TStateId>,
  snapshot: MachineSnapshot<TContext, TStateId>,
  options: AvailableTransitionsOptions = {},
): AvailableTransition<TStateId>[] {
  const d = def as AnyDef;
  const active = snapshot.configuration.map((id) => d.states.get(id)!).filter(Boolean);
  const seen = new Set<string>();
  const out: AvailableTransition<TStateId>[] = [];
  const leaves = active.filter(isAtomic).sort(byDocumentOrder);
  const sources = [...new Set(leaves.flatMap((l) => { const chain = [l]; for (let p = l.parent; p; p = p.parent) chain.push(p); return chain; }))];
  for (const s of sources.sort(byDocumentOrder)) {
    for (const t of s.transitions) {
      for (const descriptor of t.events) {
        if (seen.has(descriptor)) continue;
        seen.add(descriptor);
        const { enabled, blocked } = probeSelect(d, snapshot as MachineSnapshot<unknown, string>, descriptor, options.slices);
        if (enabled.length > 0) {
          out.push({
            event: descriptor,
            enabled: true,
            transitions: enabled as unknown as EnabledTransition<TStateId>[],
            requiresEvent: enabled.some((x) => x.requiresEvent),
          });
        } else if (options.includeBlocked === true && blocked.length > 0) {
          const first = blocked[0]!;
          out.push({
            event: descriptor,
            enabled: false,
            transitions: [],
            requiresEvent: false,
            blockedBy: first.guard,
            ...(first.reason === undefined ? {} : { reason: first.reason }),
            blocked: blocked as unknown as BlockedTransition<TStateId>[],
          });
        }
      }
    }
  }
  return out;
}
