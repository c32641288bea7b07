import type { CoreStore } from '../session/session-types';
import { SliceNotRegisteredError } from '../session/errors';
import { SESSION_INTERNALS, type SessionInternals } from '../session/internals';
import { ComputedNode, type NodeSource } from './computed-node';
import { isComputedDef } from './computed-declaration';
import type { ComputedDef } from './define-computed';

/**
 * @internal The computed slices of one session, and the commit hook that keeps the
 * observed ones up to date.
 *
 * Glitch freedom: the session calls the hook once per commit (or once per `batch`), after
 * every slice of it was written and notified, with the names of the changed slices. The
 * graph collects the observed nodes downstream of those slices, sorts them by depth (a node
 * is deeper than all its computed sources) and refreshes and emits each once. Refreshing
 * pulls sources first, so no `project` ever sees a half-updated set of sources, also in
 * diamonds; the depth order makes a lower node's observers hear about a change before a
 * higher node's observers do.
 */
export class ComputedGraph {
  private readonly nodes = new Map<ComputedDef<string, any>, ComputedNode<any>>();
  private readonly bySlice = new Map<string, Set<ComputedNode<any>>>();
  private observed = 0;
  /**
   * Refresh plans by changed-slice set: the observed nodes downstream of those slices, in
   * depth order. Cleared whenever the graph or its observers change, so a commit usually
   * reuses one instead of walking the graph.
   */
  private readonly plans = new Map<string, ComputedNode<any>[]>();
  /** The set of the last commit that ran a plan, and that plan (see `onCommit`). */
  private lastChanged: ReadonlySet<string> | undefined = undefined;
  private lastPlan: readonly ComputedNode<any>[] = NO_PLAN;
  readonly internals: SessionInternals;
  /** Per-session objects built over the graph: handles (keyed by node) and families (keyed by declaration). */
  readonly extensions = new Map<object, unknown>();

  constructor(session: CoreStore) {
    this.internals = session[SESSION_INTERNALS];
    const stop = this.internals.onCommit(this);
    this.internals.onDispose(() => {
      stop();
      for (const node of this.nodes.values()) node.complete();
    });
  }

  /** The node of `def`, created (with its computed sources) on first use. */
  node<TValue>(def: ComputedDef<string, TValue>): ComputedNode<TValue> {
    const existing = this.nodes.get(def);
    if (existing !== undefined) return existing;
    const sources: NodeSource[] = def.sources.map((source) => {
      if (isComputedDef(source)) return { node: this.node(source) };
      if (!this.internals.hasSlice(source.name)) throw new SliceNotRegisteredError(source.name);
      return { slice: source, ref: this.internals.sliceSource(source.name) };
    });
    const node = new ComputedNode(def, sources, this.internals);
    for (const s of sources) {
      if (s.node !== undefined) s.node.dependents.add(node);
      else {
        let set = this.bySlice.get(s.slice.name);
        if (set === undefined) this.bySlice.set(s.slice.name, (set = new Set()));
        set.add(node);
      }
    }
    this.nodes.set(def, node);
    this.dropPlans();
    return node;
  }

  /** Counts an observer of `node` (its `value$` subscription). */
  retain(node: ComputedNode<any>): void {
    node.observers++;
    this.observed++;
    this.dropPlans();
  }

  release(node: ComputedNode<any>): void {
    node.observers--;
    this.observed--;
    this.dropPlans();
    if (node.observers === 0 && node.orphan) this.detach(node);
  }

  /** Removes `node` from the graph (now, or when its last observer leaves). Its computed sources stay. */
  forget(node: ComputedNode<any>): void {
    if (node.observers > 0) node.orphan = true;
    else this.detach(node);
  }

  private detach(node: ComputedNode<any>): void {
    if (this.nodes.get(node.def) !== node || node.dependents.size > 0) return;
    this.nodes.delete(node.def);
    this.dropPlans();
    this.extensions.delete(node);
    for (const s of node.sources) {
      if (s.node !== undefined) s.node.dependents.delete(node);
      else this.bySlice.get(s.slice.name)?.delete(node);
    }
    node.complete();
  }

  /** Forgets `node`'s memo; observed nodes at or above it are recomputed and emit if they changed. */
  invalidate(node: ComputedNode<any>): void {
    node.invalidate();
    if (this.observed > 0) this.update(new Set([node]));
  }

  /** @internal Called by the session once per publish with the changed slices: refreshes the observed nodes downstream. */
  onCommit(changed: ReadonlySet<string>): void {
    if (this.observed === 0) return;
    // The session hands out one set per slice (and per restore plan): the same set as last time
    // reuses the last plan without building its key.
    if (changed === this.lastChanged) {
      this.run(this.lastPlan);
      return;
    }
    // Keyed by the names in the set's order (the order the commit changed them, the same for
    // every event of one type), not sorted: the same slices in another order make another key of
    // the same plan, and the plans kept are bounded.
    const key = changed.size === 1 ? (changed.values().next().value as string) : [...changed].join('\u0000');
    let plan = this.plans.get(key);
    if (plan === undefined) {
      if (this.plans.size >= MAX_PLANS) this.plans.clear();
      const roots = new Set<ComputedNode<any>>();
      for (const name of changed) {
        const set = this.bySlice.get(name);
        if (set !== undefined) for (const node of set) roots.add(node);
      }
      plan = this.planFor(roots);
      this.plans.set(key, plan);
    }
    this.lastChanged = changed;
    this.lastPlan = plan;
    this.run(plan);
  }

  /** Forgets every plan (a node was added, observed, released or detached). */
  private dropPlans(): void {
    this.plans.clear();
    this.lastChanged = undefined;
    this.lastPlan = NO_PLAN;
  }

  /** Refreshes and emits, once each and in depth order, the observed nodes at or above `roots`. */
  private update(roots: Set<ComputedNode<any>>): void {
    this.run(this.planFor(roots));
  }

  private run(plan: readonly ComputedNode<any>[]): void {
    for (let i = 0; i < plan.length; i++) (plan[i] as ComputedNode<any>).refresh();
    for (let i = 0; i < plan.length; i++) (plan[i] as ComputedNode<any>).emit();
  }

  /** The observed nodes at or above `roots`, in depth order. */
  private planFor(roots: Set<ComputedNode<any>>): ComputedNode<any>[] {
    const affected: ComputedNode<any>[] = [];
    const visited = new Set<ComputedNode<any>>();
    const stack = [...roots];
    for (let node = stack.pop(); node !== undefined; node = stack.pop()) {
      if (visited.has(node)) continue;
      visited.add(node);
      if (node.observers > 0) affected.push(node);
      for (const d of node.dependents) stack.push(d);
    }
    if (affected.length > 1) affected.sort((a, b) => a.depth - b.depth);
    return affected;
  }
}

/** Key of the graph in the session's extension registry. */
/** Plans kept per graph (one per distinct sequence of changed slices; all are dropped beyond it). */
const MAX_PLANS = 256;

const NO_PLAN: readonly ComputedNode<any>[] = Object.freeze([]);

const GRAPH = Symbol('rxslice.computed.graph');

/** @internal The computed graph of `session` (kept in its extension registry), created on first use. */
export function graphOf(session: CoreStore): ComputedGraph {
  const extensions = session[SESSION_INTERNALS].extensions;
  let graph = extensions.get(GRAPH) as ComputedGraph | undefined;
  if (graph === undefined) {
    graph = new ComputedGraph(session);
    extensions.set(GRAPH, graph);
  }
  return graph;
}
