import type { Guard, MachineAction } from './actions.js';
import type { ActionArgs } from './actions.js';

/** Kind of a normalised state node; `root` is the machine itself (SCXML `<scxml>`). */
export type StateNodeKind = 'root' | 'atomic' | 'compound' | 'parallel' | 'final' | 'history';

/** A normalised state (read-only view used by the algorithm and introspection). */
export interface StateNode {
  readonly id: string;
  readonly kind: StateNodeKind;
  /** Position in document order (pre-order; the root is 0). */
  readonly order: number;
  readonly parent: StateNode | undefined;
  /** Child states (state, parallel, final) in document order; history states are in `history`. */
  readonly children: readonly StateNode[];
  readonly history: readonly StateNode[];
  /** Compound states and the root: the initial transition. */
  readonly initial: TransitionNode | undefined;
  readonly transitions: readonly TransitionNode[];
  /** Blocks of executable content (each `<onentry>` is one block). */
  readonly entry: readonly (readonly MachineAction<unknown>[])[];
  readonly exit: readonly (readonly MachineAction<unknown>[])[];
  readonly historyType: 'shallow' | 'deep' | undefined;
  /** History states: the default transition (its `source` is the history state). */
  readonly historyDefault: TransitionNode | undefined;
  /** Final states: the `output` of the config (the `done.state.<parent>` payload, or the machine's output). */
  readonly output: ((args: ActionArgs<unknown>) => unknown) | undefined;
  readonly description: string | undefined;
}

/** A normalised transition. */
export interface TransitionNode {
  /** The transition's name (`name: 'start_planning'`), shown by `toMermaid` and in explanations; undefined when unnamed. */
  readonly name: string | undefined;
  readonly source: StateNode;
  /** Normalised event descriptors; empty for an eventless transition. */
  readonly events: readonly string[];
  readonly guard: Guard<unknown> | undefined;
  readonly guardLabel: string | undefined;
  /** Empty for a targetless transition. */
  readonly targets: readonly StateNode[];
  readonly type: 'internal' | 'external';
  readonly actions: readonly MachineAction<unknown>[];
  /**
   * Position in the order the transitions were written: each state's own transitions in
   * document order, then the machine-level `transitions` list (one node per source state).
   * `toMermaid` draws arrows in this order; selection uses each state's `transitions` order.
   */
  readonly order: number;
}

/** True for states without child states: atomic and final (SCXML "atomic state"). */
export const isAtomic = (s: StateNode): boolean => s.kind === 'atomic' || s.kind === 'final';
/** True for compound states (children, not parallel) and the root. */
export const isCompoundOrRoot = (s: StateNode): boolean => s.kind === 'compound' || s.kind === 'root';

/** True when `s` is a proper descendant of `ancestor`. */
export function isDescendant(s: StateNode, ancestor: StateNode): boolean {
  for (let p = s.parent; p !== undefined; p = p.parent) if (p === ancestor) return true;
  return false;
}

/** Proper ancestors of `s`, nearest first, stopping before `upTo` (exclusive; undefined: up to and including the root). */
export function properAncestors(s: StateNode, upTo: StateNode | undefined): StateNode[] {
  const out: StateNode[] = [];
  for (let p = s.parent; p !== undefined && p !== upTo; p = p.parent) out.push(p);
  return out;
}

/** Sorts states by document order (entry order). */
export const byDocumentOrder = (a: StateNode, b: StateNode): number => a.order - b.order;
