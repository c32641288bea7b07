import type { MachineAction } from './actions.js';
import { parseEventDescriptors } from './event-descriptor.js';
import { InvalidMachineError } from './errors.js';
import type { Actions, InitialSpec, MachineConfig, StateConfig, Targets, TransitionConfig, TransitionSpec } from './machine-config.js';
import type { StateNode, StateNodeKind, TransitionNode } from './state-node.js';
import { isDescendant } from './state-node.js';
import { quote } from '../internal/quote';

/** The id of the machine's root node; never part of a configuration. */
export const ROOT_ID = '(machine)';

type Mutable<T> = { -readonly [K in keyof T]: T[K] };
type PendingTargets = { transition: Mutable<TransitionNode>; targets: readonly string[] };

const toList = <T>(v: T | readonly T[] | undefined): readonly T[] =>
  v === undefined ? [] : Array.isArray(v) ? (v as readonly T[]) : [v as T];

function toBlocks(actions: StateConfig['entry']): (readonly MachineAction<unknown>[])[] {
  if (actions === undefined) return [];
  if (!Array.isArray(actions)) return [[actions as MachineAction<unknown>]];
  if (actions.length > 0 && actions.every((a) => Array.isArray(a))) return actions as (readonly MachineAction<unknown>[])[];
  return actions.length === 0 ? [] : [actions as readonly MachineAction<unknown>[]];
}

/**
 * Normalises a machine config into linked state nodes in document order and validates it
 * (unique ids, known targets, kinds). Throws {@link InvalidMachineError}.
 */
export function buildStateTree(name: string, config: MachineConfig): { root: StateNode; states: Map<string, StateNode> } {
  const states = new Map<string, StateNode>();
  const pending: PendingTargets[] = [];
  const fail = (message: string): never => {
    throw new InvalidMachineError(name, message);
  };
  let order = 0;
  let transitionOrder = 0;

  const makeTransition = (
    source: StateNode,
    spec: Omit<TransitionConfig, 'event'> & { event?: string },
  ): Mutable<TransitionNode> => {
    if (spec.name !== undefined && (typeof spec.name !== 'string' || spec.name.length === 0))
      fail(`state ${quote(source.id)} has a transition whose name is ${JSON.stringify(spec.name)}: a name must be a non-empty string (or leave it out).`);
    const t: Mutable<TransitionNode> = {
      name: spec.name,
      source,
      events: spec.event === undefined ? [] : parseEventDescriptors(spec.event),
      guard: spec.guard,
      guardLabel: spec.guardLabel ?? (spec.guard ? guardName(spec.guard, spec.event, source.id) : undefined),
      targets: [],
      type: spec.type ?? 'external',
      actions: toList(spec.actions as Actions<unknown> | undefined) as MachineAction<unknown>[],
      order: transitionOrder++,
    };
    if (spec.event !== undefined && t.events.length === 0) fail(`state ${quote(source.id)} has a transition with an empty event descriptor; omit "event" for an eventless transition.`);
    pending.push({ transition: t, targets: toList(spec.target) });
    return t;
  };
  const fromSpec = (spec: TransitionSpec, event?: string): TransitionConfig =>
    typeof spec === 'string' || Array.isArray(spec)
      ? { ...(event !== undefined ? { event } : {}), target: spec as Targets }
      : { ...(spec as TransitionConfig), ...(event !== undefined ? { event } : {}) };
  const initialOf = (source: StateNode, spec: InitialSpec | undefined): Mutable<TransitionNode> | undefined => {
    if (spec === undefined) return undefined;
    const cfg = typeof spec === 'string' || Array.isArray(spec) ? { target: spec as Targets } : (spec as { target: Targets; actions?: Actions<unknown> });
    const t = makeTransition(source, { target: cfg.target, ...(cfg.actions !== undefined ? { actions: cfg.actions } : {}), type: 'internal' });
    return t;
  };

  const build = (id: string, cfg: StateConfig, parent: StateNode | undefined): StateNode => {
    if (states.has(id) || (id === ROOT_ID && parent !== undefined)) fail(`duplicate state id ${quote(id)}. State ids must be unique in the whole machine.`);
    const childEntries = Object.entries(cfg.states ?? {});
    const kind: StateNodeKind =
      parent === undefined ? 'root' : (cfg.type ?? (childEntries.length > 0 ? 'compound' : 'atomic'));
    if ((kind === 'atomic' || kind === 'final' || kind === 'history') && childEntries.length > 0)
      fail(`state ${quote(id)} of type ${quote(kind)} cannot have child states.`);
    if ((kind === 'compound' || kind === 'parallel') && childEntries.length === 0)
      fail(`state ${quote(id)} of type ${quote(kind)} needs child states.`);
    if (kind === 'parallel' && cfg.initial !== undefined) fail(`parallel state ${quote(id)} cannot have "initial": all its regions are entered.`);
    if ((kind === 'final' || kind === 'history') && (cfg.on || cfg.always || cfg.transitions))
      fail(`${kind} state ${quote(id)} cannot have transitions.`);
    if (kind === 'history' && (parent === undefined || parent.kind === 'root'))
      fail(`history state ${quote(id)} must be the child of a compound or parallel state.`);
    const node: Mutable<StateNode> = {
      id,
      kind,
      order: order++,
      parent,
      children: [],
      history: [],
      initial: undefined,
      transitions: [],
      entry: toBlocks(cfg.entry),
      exit: toBlocks(cfg.exit),
      historyType: kind === 'history' ? (cfg.history ?? 'shallow') : undefined,
      historyDefault: undefined,
      output: cfg.output as StateNode['output'],
      description: cfg.description,
    };
    states.set(id, node);
    const transitions: TransitionNode[] = [];
    for (const [descriptor, specs] of Object.entries(cfg.on ?? {})) {
      const list = Array.isArray(specs) && specs.some((s) => typeof s !== 'string') ? specs : [specs];
      for (const spec of list as TransitionSpec[]) transitions.push(makeTransition(node, fromSpec(spec, descriptor)));
    }
    const always = cfg.always === undefined ? [] : Array.isArray(cfg.always) && cfg.always.some((s) => typeof s !== 'string') ? cfg.always : [cfg.always];
    for (const spec of always as TransitionSpec[]) transitions.push(makeTransition(node, fromSpec(spec)));
    for (const t of cfg.transitions ?? []) transitions.push(makeTransition(node, t));
    node.transitions = transitions;
    if (kind === 'history' && (cfg.target !== undefined || cfg.defaultActions !== undefined)) {
      node.historyDefault = makeTransition(node, { ...(cfg.target !== undefined ? { target: cfg.target } : {}), ...(cfg.defaultActions !== undefined ? { actions: cfg.defaultActions } : {}) });
    }
    const initial = initialOf(node, cfg.initial);
    if (initial !== undefined && kind !== 'compound' && kind !== 'root') fail(`state ${quote(id)} of type ${quote(kind)} cannot have "initial".`);
    for (const [childId, childCfg] of childEntries) {
      const child = build(childId, childCfg, node);
      if (child.kind === 'history') (node.history as StateNode[]).push(child);
      else (node.children as StateNode[]).push(child);
    }
    if (kind === 'compound' || kind === 'root') {
      if (node.children.length === 0) fail(kind === 'root' ? 'the machine needs at least one state in "states".' : `compound state ${quote(id)} needs a child state other than history states.`);
      node.initial = initial ?? makeTransition(node, { target: node.children[0]!.id, type: 'internal' });
    }
    return node;
  };

  const root = build(ROOT_ID, { states: config.states, ...(config.initial !== undefined ? { initial: config.initial } : {}) }, undefined);

  // Machine-level transitions: one node per source state, after that state's own transitions.
  (config.transitions ?? []).forEach((spec, i) => {
    const what = spec?.name === undefined ? `transitions[${i}]` : `transition ${quote(String(spec.name))} (transitions[${i}])`;
    if (spec === null || typeof spec !== 'object') fail(`${what} is not a transition config: write { name?, event, from, target?, guard?, actions? }.`);
    if (typeof spec.event !== 'string' || spec.event.length === 0)
      fail(`${what} needs an "event": a machine-level transition is taken on an event. Write eventless transitions under a state's "always".`);
    const from = toList(spec.from);
    if (from.length === 0) fail(`${what} needs "from": the state or states it leaves, e.g. from: ['planning', 'executing'].`);
    const seen = new Set<string>();
    for (const id of from) {
      const source = states.get(id);
      if (source === undefined || id === ROOT_ID)
        fail(`${what} leaves unknown state ${quote(id)}. Known states: ${[...states.keys()].filter((k) => k !== ROOT_ID).join(', ')}.`);
      if (source!.kind === 'final' || source!.kind === 'history') fail(`${what} leaves ${source!.kind} state ${quote(id)}, which cannot have transitions.`);
      if (seen.has(id)) fail(`${what} names state ${quote(id)} twice in "from".`);
      seen.add(id);
      const { from: _from, ...rest } = spec;
      (source!.transitions as TransitionNode[]).push(makeTransition(source!, rest));
    }
  });

  for (const { transition, targets } of pending) {
    transition.targets = targets.map((t) => states.get(t) ?? fail(`state ${quote(transition.source.id)} has a transition to unknown state ${quote(t)}. Known states: ${[...states.keys()].filter((k) => k !== ROOT_ID).join(', ')}.`));
  }
  for (const node of states.values()) {
    const init = node.initial;
    if (init && init.source === node) {
      if (init.targets.length === 0) fail(`state ${quote(node.id)} has an empty initial.`);
      for (const t of init.targets) if (!isDescendant(t, node)) fail(`initial state ${quote(t.id)} of ${quote(node.id === ROOT_ID ? name : node.id)} is not one of its descendants.`);
    }
    if (node.kind === 'history') {
      const parent = node.parent!;
      if (node.historyDefault === undefined || node.historyDefault.targets.length === 0) {
        // No default given: SCXML requires one; we fall back to the parent's default entry.
        const fallback = parent.kind === 'parallel' ? parent.children : parent.initial!.targets;
        const t = node.historyDefault as Mutable<TransitionNode> | undefined;
        if (t) t.targets = fallback;
        else (node as Mutable<StateNode>).historyDefault = { name: undefined, source: node, events: [], guard: undefined, guardLabel: undefined, targets: fallback, type: 'external', actions: [], order: transitionOrder++ };
      }
      for (const t of node.historyDefault!.targets) if (!isDescendant(t, parent)) fail(`history state ${quote(node.id)} has default target ${quote(t.id)} outside its parent ${quote(parent.id)}.`);
    }
  }
  return { root, states };
}

/**
 * The label of a guard given without `guardLabel`: its function's name, or, for an anonymous
 * guard (an arrow function, whose inferred name is the property's, `guard`), the transition it
 * guards: `guard of "plan/completed" in [active]`.
 */
function guardName(guard: { readonly name: string }, event: string | undefined, source: string): string {
  const name = guard.name;
  if (name !== '' && name !== 'guard') return name;
  return `guard of ${event === undefined ? 'the eventless transition' : quote(event)} in [${source}]`;
}
