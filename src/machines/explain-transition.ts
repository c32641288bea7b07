import { isGuardRefusal } from './actions.js';
import { eventMatches } from './event-descriptor.js';
import { actionArgs, type GuardRefusalRecord } from './interpreter-state.js';
import type { MachineDefinition } from './machine-definition.js';
import { toMachineEvent, type MachineEvent } from './machine-event.js';
import type { MachineSlices } from './machine-slices.js';
import type { MachineSnapshot } from './machine-snapshot.js';
import { computeExitSet, removeConflictingTransitions } from './microstep.js';
import { byDocumentOrder, isAtomic, type StateNode, type TransitionNode } from './state-node.js';
import type { ConsideredTransition, TransitionDecision, TransitionVerdict } from './transition-decision.js';
import { restore } from './restore-snapshot.js';
import { quote } from '../internal/quote';

type AnyDef = MachineDefinition<unknown, string, string>;

const messageOf = (error: unknown): string => (error instanceof Error ? error.message : String(error));

function considered(t: TransitionNode, verdict: TransitionVerdict, reason: string | undefined): ConsideredTransition {
  return {
    ...(t.name === undefined ? {} : { name: t.name }),
    source: t.source.id,
    targets: t.targets.map((s) => s.id),
    events: t.events,
    ...(t.guardLabel === undefined ? {} : { guard: t.guardLabel }),
    verdict,
    ...(reason === undefined ? {} : { reason }),
  };
}

/**
 * The considered transitions of an event that enabled nothing, from the refusals recorded while
 * its transitions were selected (internal): each transition once, in selection order.
 */
export function consideredFromRefusals(records: readonly GuardRefusalRecord[] | undefined): ConsideredTransition[] {
  if (records === undefined) return [];
  const seen = new Set<TransitionNode>();
  const out: ConsideredTransition[] = [];
  for (const r of records) {
    if (seen.has(r.transition)) continue;
    seen.add(r.transition);
    out.push(considered(r.transition, r.verdict, r.reason));
  }
  return out;
}

/**
 * The decision about `event` in `snapshot` (internal; what {@link explainTransition} answers):
 * SCXML Appendix D `selectTransitions`, recording every matching transition on the way and its
 * guard's verdict, then `removeConflictingTransitions`, recording the losers as preempted.
 * Runs on a throwaway interpreter state: a throwing guard's `error.execution` goes nowhere.
 */
export function decideTransition(def: AnyDef, snapshot: MachineSnapshot<unknown, string>, event: MachineEvent, slices: MachineSlices | undefined): TransitionDecision {
  const base = { machine: def.name, event: event.type, configuration: snapshot.configuration, done: snapshot.done };
  const it = restore(def, snapshot, 0, slices);
  if (!it.running) return { ...base, enabled: false, considered: [] };
  it.currentEvent = { event, kind: 'external' };
  const verdicts = new Map<TransitionNode, ConsideredTransition>();
  const selected: TransitionNode[] = [];
  const atomic = [...it.configuration].filter(isAtomic).sort(byDocumentOrder);
  for (const state of atomic) {
    search: for (let s: StateNode | undefined = state; s !== undefined; s = s.parent) {
      for (const t of s.transitions) {
        if (t.events.length === 0 || !eventMatches(t.events, event.type)) continue;
        const seen = verdicts.get(t);
        if (seen !== undefined) {
          // reached again from another region: guards are pure, so the verdict stands
          if (seen.verdict === 'enabled') break search;
          continue;
        }
        let verdict: TransitionVerdict = 'enabled';
        let reason: string | undefined;
        if (t.guard !== undefined) {
          try {
            const result = t.guard(actionArgs(it));
            if (result !== true) {
              verdict = 'refused';
              if (isGuardRefusal(result)) reason = result.reason;
            }
          } catch (error) {
            verdict = 'threw';
            reason = messageOf(error);
          }
        }
        verdicts.set(t, considered(t, verdict, reason));
        if (verdict === 'enabled') {
          selected.push(t);
          break search;
        }
      }
    }
  }
  if (selected.length > 1) {
    const kept = removeConflictingTransitions(it, selected);
    for (const t of selected) {
      if (kept.includes(t)) continue;
      const exit = computeExitSet(it, [t]);
      const winner = kept.find((k) => [...computeExitSet(it, [k])].some((s) => exit.has(s))) ?? kept[0]!;
      verdicts.set(t, considered(t, 'preempted', `the transition from ${quote(winner.source.id)} conflicts with it and wins (SCXML removeConflictingTransitions)`));
    }
  }
  return { ...base, enabled: selected.length > 0, considered: [...verdicts.values()] };
}

/** Options of {@link explainTransition}. */
export interface ExplainOptions {
  /** What guards read as `slices` (an installed machine passes its session's). */
  readonly slices?: MachineSlices;
}

/**
 * What the machine would decide about `event` now, and why: every transition that matches it
 * from the active states, each with its source, targets, name, guard and the guard's verdict
 * (`'enabled'`, `'refused'` with the reason given by `refuse(reason)`, `'threw'`, `'preempted'`).
 * The explaining form of {@link canTransition}: `explainTransition(...).enabled` is its answer.
 *
 * @remarks Synchronous and pure as long as guards are; nothing runs but the guards, and nothing
 * changes. Follows SCXML Appendix D `selectTransitions` (active atomic states in document order,
 * each up through its ancestors until a transition is enabled) and `removeConflictingTransitions`.
 * A done machine considers nothing (`done: true`, `enabled: false`).
 * @throws {@link InvalidMachineError} when the snapshot does not fit the definition.
 * @example
 * ```ts
 * explainTransition(PlanWorkflow, snapshot, AddStep({ id: 'tests', title: 'again' }), { slices });
 * // { machine: 'planWorkflow', event: 'plan/stepAdded', configuration: ['active'], done: false, enabled: false,
 * //   considered: [{ source: 'active', targets: [], events: ['plan/stepAdded'], guard: 'stepIsNew',
 * //                  verdict: 'refused', reason: 'step "tests" exists already' }] }
 * ```
 */
export function explainTransition<TContext, TEventType extends string, TStateId extends string>(
  def: MachineDefinition<TContext, TEventType, TStateId>,
  snapshot: MachineSnapshot<TContext, TStateId>,
  event: NoInfer<TEventType> | MachineEvent<NoInfer<TEventType>>,
  options: ExplainOptions = {},
): TransitionDecision<TStateId> {
  return decideTransition(def as AnyDef, snapshot as MachineSnapshot<unknown, string>, toMachineEvent(event as string | MachineEvent), options.slices) as TransitionDecision<TStateId>;
}
