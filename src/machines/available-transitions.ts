import type { MachineDefinition } from './machine-definition.js';
import { toMachineEvent, type MachineEvent } from './machine-event.js';
import type { MachineSnapshot } from './machine-snapshot.js';
import { getEffectiveTargetStates, selectTransitions } from './microstep.js';
import { byDocumentOrder, isAtomic } from './state-node.js';
import { restore } from './transition.js';

/** One transition the event would take: its source and effective targets (empty: targetless). */
export interface EnabledTransition<TStateId extends string = string> {
  readonly source: TStateId;
  readonly targets: readonly TStateId[];
}

/** An event name that is enabled now, with the transitions it would take. */
export interface AvailableTransition<TStateId extends string = string> {
  /** The normalised descriptor (`'agent/aborted'`; `'error.*'` is reported as `'error'`; `'*'`). */
  readonly event: string;
  readonly transitions: readonly EnabledTransition<TStateId>[];
}

type AnyDef = MachineDefinition<unknown, string, string>;

function enabledFor(def: AnyDef, snapshot: MachineSnapshot<unknown, string>, event: MachineEvent) {
  const it = restore(def, snapshot, 0);
  if (!it.running) return [];
  it.currentEvent = { event, kind: 'external' };
  return selectTransitions(it, it.currentEvent).map((t) => ({
    source: t.source.id,
    targets: getEffectiveTargetStates(it, t).map((s) => s.id),
  }));
}

/**
 * True when `event` would enable at least one transition from this snapshot (guards are
 * evaluated against the snapshot's context; nothing runs and nothing changes).
 *
 * @remarks Synchronous and pure as long as guards are. A done machine enables nothing.
 * @example
 * ```ts
 * canTransition(AgentPhase, snapshot, 'agent/planReady'); // true in 'planning'
 * ```
 */
export function canTransition<TContext, TEventType extends string, TStateId extends string>(
  def: MachineDefinition<TContext, TEventType, TStateId>,
  snapshot: MachineSnapshot<TContext, TStateId>,
  event: NoInfer<TEventType> | MachineEvent<NoInfer<TEventType>>,
): boolean {
  return enabledFor(def as AnyDef, snapshot, toMachineEvent(event as string | MachineEvent)).length > 0;
}

/**
 * The event descriptors of the active states that would enable a transition now, in
 * document order, each with the transitions it would take (after conflict removal, SCXML
 * Appendix D `selectTransitions`). Guards see an event `{ type: descriptor }` without payload.
 *
 * @example
 * ```ts
 * availableTransitions(AgentPhase, snapshot);
 * // [{ event: 'agent/planReady', transitions: [{ source: 'planning', targets: ['executing'] }] },
 * //  { event: 'agent/aborted', transitions: [{ source: 'active', targets: ['failed'] }] }]
 * ```
 */
export function availableTransitions<TContext, TEventType extends string, TStateId extends string>(
  def: MachineDefinition<TContext, TEventType, TStateId>,
  snapshot: MachineSnapshot<TContext, TStateId>,
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
        const transitions = enabledFor(d, snapshot as MachineSnapshot<unknown, string>, { type: descriptor });
        if (transitions.length > 0) out.push({ event: descriptor, transitions: transitions as unknown as EnabledTransition<TStateId>[] });
      }
    }
  }
  return out;
}
