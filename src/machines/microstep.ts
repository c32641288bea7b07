/**
 * The W3C SCXML algorithm (Appendix D) over normalised state nodes: transition selection,
 * conflict removal, exit and entry sets, and one microstep. Function names follow the
 * appendix so the two can be read side by side.
 */
import { eventMatches } from './event-descriptor.js';
import { evaluateGuard, executeBlock, raiseExecutionError } from './execute-content.js';
import { actionArgs, type InterpreterState } from './interpreter-state.js';
import type { QueuedEvent } from './machine-event.js';
import { byDocumentOrder, isAtomic, isCompoundOrRoot, isDescendant, properAncestors, type StateNode, type TransitionNode } from './state-node.js';
import { quote } from '../internal/quote';

/**
 * Appendix D `selectTransitions` / `selectEventlessTransitions` (event undefined: eventless).
 * Walks parent links instead of building ancestor lists: it runs once per macrostep and once
 * more per eventless check, so it allocates only the result.
 */
export function selectTransitions(it: InterpreterState, event: QueuedEvent | undefined): TransitionNode[] {
  const enabled: TransitionNode[] = [];
  // The active atomic states in document order (one, without parallel states: no array, no sort).
  let single: StateNode | undefined;
  let atomic: StateNode[] | undefined;
  for (const s of it.configuration) {
    if (!isAtomic(s)) continue;
    if (single === undefined) single = s;
    else (atomic ??= [single]).push(s);
  }
  if (single === undefined) return enabled;
  if (atomic !== undefined) atomic.sort(byDocumentOrder);
  const type = event === undefined ? undefined : event.event.type;
  const count = atomic === undefined ? 1 : atomic.length;
  for (let k = 0; k < count; k++) {
    const state = atomic === undefined ? single : (atomic[k] as StateNode);
    // The transitions of the state itself, then of its proper ancestors up to and including the
    // root, that match the event, in that order: the first whose guard holds is selected.
    const candidates = candidatesOf(state, type);
    for (let i = 0; i < candidates.length; i++) {
      const t = candidates[i] as TransitionNode;
      if (evaluateGuard(it, t)) {
        if (!enabled.includes(t)) enabled.push(t);
        break;
      }
    }
  }
  return enabled.length > 1 ? removeConflictingTransitions(it, enabled) : enabled;
}

/** The key of eventless transitions in a {@link candidatesOf} cache (event names are never empty). */
const EVENTLESS = '';
/** How many event names a state remembers its candidates for (names beyond it are matched each time). */
const CANDIDATES_KEPT = 512;
/** Per atomic state: its candidate transitions per event name (see {@link candidatesOf}). */
const candidatesByState = new WeakMap<StateNode, Map<string, readonly TransitionNode[]>>();

/**
 * The transitions that `selectTransitions` considers for `type` (undefined: eventless) from the
 * atomic `state`, in selection order: the state's own matching transitions in document order,
 * then each proper ancestor's up to the root. Depends on the tree alone (descriptors are fixed),
 * so it is worked out once per state and event name.
 */
function candidatesOf(state: StateNode, type: string | undefined): readonly TransitionNode[] {
  const key = type ?? EVENTLESS;
  let byType = candidatesByState.get(state);
  const known = byType?.get(key);
  if (known !== undefined) return known;
  const out: TransitionNode[] = [];
  for (let s: StateNode | undefined = state; s !== undefined; s = s.parent) {
    for (const t of s.transitions) {
      if (type === undefined ? t.events.length === 0 : t.events.length > 0 && eventMatches(t.events, type)) out.push(t);
    }
  }
  if (byType === undefined) candidatesByState.set(state, (byType = new Map()));
  if (byType.size < CANDIDATES_KEPT) byType.set(key, out);
  return out;
}

/**
 * Appendix D `removeConflictingTransitions`: of two transitions whose exit sets intersect,
 * the one whose source is a descendant of the other's wins, else the earlier one in
 * document order (which was selected first).
 */
export function removeConflictingTransitions(it: InterpreterState, enabled: readonly TransitionNode[]): TransitionNode[] {
  let filtered: TransitionNode[] = [];
  for (const t1 of enabled) {
    let preempted = false;
    const toRemove = new Set<TransitionNode>();
    const exit1 = filtered.length === 0 ? undefined : computeExitSet(it, [t1]);
    for (const t2 of filtered) {
      const exit2 = computeExitSet(it, [t2]);
      if ([...(exit1 as Set<StateNode>)].some((s) => exit2.has(s))) {
        if (isDescendant(t1.source, t2.source)) toRemove.add(t2);
        else {
          preempted = true;
          break;
        }
      }
    }
    if (!preempted) {
      filtered = filtered.filter((t) => !toRemove.has(t));
      filtered.push(t1);
    }
  }
  return filtered;
}

/** Appendix D `getEffectiveTargetStates`: history targets resolved to recorded or default states. */
export function getEffectiveTargetStates(it: InterpreterState, t: TransitionNode): StateNode[] {
  const targets: StateNode[] = [];
  const add = (s: StateNode) => {
    if (!targets.includes(s)) targets.push(s);
  };
  for (const s of t.targets) {
    if (s.kind === 'history') {
      const recorded = it.historyValue.get(s.id);
      if (recorded) recorded.forEach(add);
      else getEffectiveTargetStates(it, s.historyDefault!).forEach(add);
    } else add(s);
  }
  return targets;
}

/** Appendix D `findLCCA`: the least common compound ancestor (the root counts as compound). */
export function findLCCA(states: readonly StateNode[]): StateNode {
  const [head, ...tail] = states;
  for (const anc of properAncestors(head!, undefined)) {
    if (isCompoundOrRoot(anc) && tail.every((s) => isDescendant(s, anc))) return anc;
  }
  return head!; // only reached for the root itself
}

/**
 * Appendix D `getTransitionDomain` (SCXML 3.13): the source for an internal transition
 * whose targets all lie inside a compound source, else the LCCA of source and targets.
 */
export function getTransitionDomain(it: InterpreterState, t: TransitionNode): StateNode | undefined {
  // Without a history target the domain depends on the transition alone: decided once.
  const known = fixedDomains.get(t);
  if (known !== undefined) return known;
  const domain = computeTransitionDomain(it, t);
  if (domain !== undefined && !t.targets.some((s) => s.kind === 'history')) fixedDomains.set(t, domain);
  return domain;
}

/** The domains of transitions without a history target, per transition node (see {@link getTransitionDomain}). */
const fixedDomains = new WeakMap<TransitionNode, StateNode>();

function computeTransitionDomain(it: InterpreterState, t: TransitionNode): StateNode | undefined {
  const targets = getEffectiveTargetStates(it, t);
  if (targets.length === 0) return undefined;
  if (t.type === 'internal' && isCompoundOrRoot(t.source) && targets.every((s) => isDescendant(s, t.source))) return t.source;
  return findLCCA([t.source, ...targets]);
}

/** Appendix D `computeExitSet`: active descendants of each transition's domain. */
export function computeExitSet(it: InterpreterState, transitions: readonly TransitionNode[]): Set<StateNode> {
  const out = new Set<StateNode>();
  for (const t of transitions) {
    if (t.targets.length === 0) continue;
    const domain = getTransitionDomain(it, t);
    if (domain === undefined) continue;
    for (const s of it.configuration) if (isDescendant(s, domain)) out.add(s);
  }
  return out;
}

/** The states `computeExitSet(it, enabled)` holds, in reverse document order (the exit order). */
function exitOrder(it: InterpreterState, enabled: readonly TransitionNode[]): StateNode[] {
  let toExit: StateNode[];
  if (enabled.length === 1) {
    // One transition (the common case): its domain's active descendants, without a set.
    const t = enabled[0] as TransitionNode;
    const domain = t.targets.length === 0 ? undefined : getTransitionDomain(it, t);
    toExit = [];
    if (domain !== undefined) for (const s of it.configuration) if (isDescendant(s, domain)) toExit.push(s);
  } else {
    toExit = [...computeExitSet(it, enabled)];
  }
  return toExit.length > 1 ? toExit.sort(byReverseDocumentOrder) : toExit;
}

const byReverseDocumentOrder = (a: StateNode, b: StateNode): number => b.order - a.order;

/** Appendix D `exitStates`: record history, then run onexit in reverse document order. */
function exitStates(it: InterpreterState, enabled: readonly TransitionNode[]): void {
  const toExit = exitOrder(it, enabled);
  if (toExit.length === 0) return;
  it.configurationTouched = true;
  let active: StateNode[] | undefined;
  for (const s of toExit) {
    if (s.history.length === 0) continue;
    active ??= [...it.configuration];
    it.historyTouched = true;
    for (const h of s.history) {
      const recorded =
        h.historyType === 'deep'
          ? (active as StateNode[]).filter((s0) => isAtomic(s0) && isDescendant(s0, s))
          : (active as StateNode[]).filter((s0) => s0.parent === s);
      it.historyValue.set(h.id, recorded.sort(byDocumentOrder));
    }
  }
  for (const s of toExit) {
    for (const block of s.exit) executeBlock(it, block);
    it.configuration.delete(s);
  }
}

interface EntrySet {
  readonly states: Set<StateNode>;
  readonly forDefaultEntry: Set<StateNode>;
  readonly defaultHistoryContent: Map<StateNode, TransitionNode>;
}

function addDescendantStatesToEnter(it: InterpreterState, state: StateNode, set: EntrySet): void {
  if (state.kind === 'history') {
    const recorded = it.historyValue.get(state.id);
    if (recorded) {
      for (const s of recorded) addDescendantStatesToEnter(it, s, set);
      for (const s of recorded) addAncestorStatesToEnter(it, s, state.parent!, set);
    } else {
      const def = state.historyDefault!;
      set.defaultHistoryContent.set(state.parent!, def);
      for (const s of def.targets) addDescendantStatesToEnter(it, s, set);
      for (const s of def.targets) addAncestorStatesToEnter(it, s, state.parent!, set);
    }
    return;
  }
  set.states.add(state);
  if (state.kind === 'compound') {
    set.forDefaultEntry.add(state);
    const targets = state.initial!.targets;
    for (const s of targets) addDescendantStatesToEnter(it, s, set);
    for (const s of targets) addAncestorStatesToEnter(it, s, state, set);
  } else if (state.kind === 'parallel') {
    addParallelChildren(it, state, set);
  }
}

function addParallelChildren(it: InterpreterState, state: StateNode, set: EntrySet): void {
  for (const child of state.children) {
    if (![...set.states].some((s) => s === child || isDescendant(s, child))) addDescendantStatesToEnter(it, child, set);
  }
}

function addAncestorStatesToEnter(it: InterpreterState, state: StateNode, ancestor: StateNode | undefined, set: EntrySet): void {
  for (const anc of properAncestors(state, ancestor)) {
    if (anc.kind === 'root') continue;
    set.states.add(anc);
    if (anc.kind === 'parallel') addParallelChildren(it, anc, set);
  }
}

/** Appendix D `computeEntrySet`. */
function computeEntrySet(it: InterpreterState, transitions: readonly TransitionNode[]): EntrySet {
  const set: EntrySet = { states: new Set(), forDefaultEntry: new Set(), defaultHistoryContent: new Map() };
  for (const t of transitions) {
    for (const s of t.targets) addDescendantStatesToEnter(it, s, set);
    const ancestor = getTransitionDomain(it, t);
    for (const s of getEffectiveTargetStates(it, t)) addAncestorStatesToEnter(it, s, ancestor, set);
  }
  return set;
}

/** An entry set with its states in entry (document) order. */
interface OrderedEntrySet extends EntrySet {
  readonly ordered: readonly StateNode[];
}

/** Per tree (decided once): true when it has a history state (then entry sets depend on recorded history). */
const historyByTree = new WeakMap<object, boolean>();
/** Entry sets of single transitions in trees without history states (see {@link entrySetOf}). */
const entrySets = new WeakMap<TransitionNode, OrderedEntrySet>();

/**
 * The entry set of `transitions`, ordered. Without history states in the tree, the entry set of
 * one transition depends on the tree alone (its targets, their initial states and parallel
 * siblings, its domain), so it is computed once per transition and shared (never mutated).
 */
function entrySetOf(it: InterpreterState, transitions: readonly TransitionNode[]): OrderedEntrySet {
  const tree = it.tree;
  let history = historyByTree.get(tree);
  if (history === undefined) {
    history = false;
    for (const s of tree.states.values()) if (s.kind === 'history') history = true;
    historyByTree.set(tree, history);
  }
  const one = transitions.length === 1 && !history ? (transitions[0] as TransitionNode) : undefined;
  if (one !== undefined) {
    const known = entrySets.get(one);
    if (known !== undefined) return known;
  }
  const set = computeEntrySet(it, transitions);
  const ordered: OrderedEntrySet = { ...set, ordered: [...set.states].sort(byDocumentOrder) };
  if (one !== undefined) entrySets.set(one, ordered);
  return ordered;
}

/** Appendix D `isInFinalState`. */
function isInFinalState(it: InterpreterState, s: StateNode): boolean {
  if (s.kind === 'compound') return s.children.some((c) => c.kind === 'final' && it.configuration.has(c));
  if (s.kind === 'parallel') return s.children.every((c) => isInFinalState(it, c));
  return false;
}

function doneData(it: InterpreterState, s: StateNode): unknown {
  if (!s.output) return undefined;
  try {
    return s.output(actionArgs(it));
  } catch (error) {
    raiseExecutionError(it, error);
    return undefined;
  }
}

/**
 * Appendix D `enterStates`: enter in document order, run onentry, then the initial
 * transition's or the default history transition's content, and queue
 * `done.state.<id>` events when a compound or parallel state completes (SCXML 3.7).
 */
export function enterStates(it: InterpreterState, enabled: readonly TransitionNode[]): void {
  const set = entrySetOf(it, enabled);
  if (set.ordered.length > 0) it.configurationTouched = true;
  for (const s of set.ordered) {
    it.configuration.add(s);
    for (const block of s.entry) executeBlock(it, block);
    if (set.forDefaultEntry.has(s)) executeBlock(it, s.initial!.actions);
    const historyContent = set.defaultHistoryContent.get(s);
    if (historyContent) executeBlock(it, historyContent.actions);
    if (s.kind === 'final') {
      const parent = s.parent!;
      if (parent.kind === 'root') {
        it.running = false;
        it.output = doneData(it, s);
      } else {
        it.internalQueue.push({ event: { type: `done.state.${parent.id}`, payload: doneData(it, s) }, kind: 'platform' });
        const grandparent = parent.parent;
        if (grandparent?.kind === 'parallel' && grandparent.children.every((c) => isInFinalState(it, c))) {
          it.internalQueue.push({ event: { type: `done.state.${grandparent.id}` }, kind: 'platform' });
        }
      }
    }
  }
}

/** Appendix D `microstep`: exit, transition content in selection order, enter. */
export function microstep(it: InterpreterState, enabled: readonly TransitionNode[]): void {
  it.microsteps++;
  if (it.microsteps > it.tree.maxMicrosteps) {
    throw new RangeError(
      `Machine ${quote(it.tree.name)} took more than ${it.tree.maxMicrosteps} microsteps in one transition: an eventless or raise loop? Raise maxMicrosteps if this is intended.`,
    );
  }
  // Targetless transitions exit and enter nothing (empty exit and entry sets): only their content runs.
  let targetless = true;
  for (const t of enabled) if (t.targets.length > 0) targetless = false;
  if (targetless) {
    for (const t of enabled) executeBlock(it, t.actions);
    return;
  }
  exitStates(it, enabled);
  for (const t of enabled) executeBlock(it, t.actions);
  enterStates(it, enabled);
}
