import { Emitter, type EmitterListener } from '../internal/emitter';
import type { SliceDef } from '../slices/reducer';
import type { SessionInternals, SliceSource } from '../session/internals';
import { ComputedError } from './computed-errors';
import type { ComputedDef, IncrementalFold } from './define-computed';
import { freezeValue } from './freeze-value';

/** @internal Where a node reads one of its sources: a slice (through its live source, held by reference) or a node. */
export type NodeSource =
  | { readonly slice: SliceDef<string, any>; readonly ref: SliceSource; readonly node?: undefined }
  | { readonly slice?: undefined; readonly node: ComputedNode<any> };

/** @internal What a `value$` subscription registers on a node. */
export type NodeListener<TValue> = EmitterListener<TValue>;

/**
 * @internal The live state of one computed slice in one session.
 *
 * Pull-based and memoized: `refresh()` first refreshes its computed sources (depth first),
 * then calls `project` only when some source version differs from the versions it last saw.
 * `version` grows only when the value changed (by `equals`), so an unchanged intermediate
 * value stops recomputation of everything above it.
 */
export class ComputedNode<TValue> {
  value: TValue | undefined;
  hasValue = false;
  /** The last failure, kept while there is no value to fall back on. */
  failure: ComputedError | undefined;
  /** Increases each time the value changes. */
  version = 0;
  /** Source versions at the last computation; `undefined` = never computed, or invalidated. */
  private seen: number[] | undefined;
  /**
   * Incremental nodes: the source version and size the value was folded up to; `undefined`
   * when the next value must be folded from scratch (never folded, invalidated, a failure).
   */
  private folded: { version: number; size: number } | undefined;
  /** Scratch array for the source versions of the next computation (swapped with `seen`). */
  private spare: number[];
  /** Version last pushed to the listeners (each observer also drops repeats by `equals`). */
  emittedVersion = -1;
  readonly depth: number;
  readonly dependents = new Set<ComputedNode<any>>();
  /** The `value$` subscriptions, called directly by `emit()` (no Subject in between). */
  private readonly listeners = new Emitter<TValue>();
  observers = 0;
  /** Dropped from its family's cache while observed: detach when the last observer leaves. */
  orphan = false;
  /** The session's `freeze` option and the definition's functions, read once (fields of this class: monomorphic loads). */
  private readonly freeze: boolean;
  private readonly projectFn: (...values: any[]) => TValue;
  private readonly equalsFn: (a: TValue, b: TValue) => boolean;
  private readonly incremental: IncrementalFold<TValue> | undefined;

  constructor(
    readonly def: ComputedDef<string, TValue>,
    readonly sources: readonly NodeSource[],
    private readonly internals: SessionInternals,
  ) {
    let depth = 0;
    for (const s of sources) if (s.node !== undefined) depth = Math.max(depth, s.node.depth);
    this.depth = depth + 1;
    this.spare = new Array<number>(sources.length);
    this.freeze = internals.freeze;
    this.projectFn = def.project as (...values: any[]) => TValue;
    this.equalsFn = def.equals;
    this.incremental = def.incremental;
  }

  private sourceVersion(s: NodeSource): number {
    return s.node !== undefined ? s.node.version : s.ref.version;
  }

  /** True when `refresh()` would call `project`: never computed, invalidated, or a source changed. */
  get isStale(): boolean {
    const seen = this.seen;
    if (seen === undefined) return true;
    for (let i = 0; i < this.sources.length; i++) {
      const s = this.sources[i] as NodeSource;
      if (s.node !== undefined && s.node.isStale) return true;
      if (this.sourceVersion(s) !== seen[i]) return true;
    }
    return false;
  }

  invalidate(): void {
    this.seen = undefined;
    this.folded = undefined;
  }

  /** Brings the value up to date with the sources; never throws (failures are reported). */
  refresh(): void {
    const sources = this.sources;
    const n = sources.length;
    const seen = this.seen;
    // Each source's version is read once, after refreshing it, into the spare array; the spare
    // becomes `seen` when something changed (two arrays per node, swapped: no allocation per commit).
    const versions = this.spare;
    let stale = seen === undefined;
    // A computed source that never produced a value (its failure was already reported), read in
    // the same pass: nothing to compute from.
    let blocked: ComputedError | undefined;
    for (let i = 0; i < n; i++) {
      const s = sources[i] as NodeSource;
      const node = s.node;
      let version: number;
      if (node !== undefined) {
        node.refresh();
        version = node.version;
        if (!node.hasValue) blocked ??= node.failure;
      } else {
        version = s.ref.version;
      }
      versions[i] = version;
      if (!stale && version !== (seen as number[])[i]) stale = true;
    }
    if (!stale) return;
    this.seen = versions;
    this.spare = seen ?? new Array<number>(n);
    if (blocked !== undefined) {
      if (!this.hasValue) this.failure = blocked;
      return;
    }
    let next: TValue;
    try {
      const incremental = this.incremental;
      next = incremental === undefined ? this.project() : this.fold(incremental, versions[0] as number);
      if (this.freeze) freezeValue(next);
    } catch (cause) {
      this.folded = undefined;
      const error = new ComputedError(this.def.name, cause);
      if (!this.hasValue) this.failure = error;
      this.internals.reportError(error);
      return;
    }
    if (this.failure !== undefined) this.failure = undefined;
    if (this.hasValue && this.equalsFn(this.value as TValue, next)) return;
    this.value = next;
    this.hasValue = true;
    this.version++;
  }

  /**
   * An incremental node's next value: its value with the items appended since it was folded,
   * when the slice only had appends since then; else the fold of every item from `init()`.
   */
  private fold(incremental: IncrementalFold<TValue>, version: number): TValue {
    const source = this.sources[0] as NodeSource & { readonly ref: SliceSource; readonly slice: SliceDef<string, any> };
    const slice = source.slice;
    const items = source.ref.all();
    const folded = this.folded;
    this.folded = undefined; // until this fold succeeds
    let next: TValue;
    if (folded !== undefined && this.hasValue && items.length >= folded.size && this.internals.appendedOnlySince(slice.name, folded.version)) {
      next = items.length === folded.size ? (this.value as TValue) : incremental.fold(this.value as TValue, items.slice(folded.size));
    } else {
      next = incremental.fold(incremental.init(), items);
    }
    this.folded = { version, size: items.length };
    return next;
  }

  /** The value of source `i`: a slice's items, or a computed source's value. */
  private valueOf(i: number): unknown {
    const s = this.sources[i] as NodeSource;
    return s.node === undefined ? s.ref.all() : s.node.value;
  }

  /** Calls `project` with the sources' values (no argument array for up to three sources). */
  private project(): TValue {
    const project = this.projectFn;
    switch (this.sources.length) {
      case 0:
        return project();
      case 1:
        return project(this.valueOf(0));
      case 2:
        return project(this.valueOf(0), this.valueOf(1));
      case 3:
        return project(this.valueOf(0), this.valueOf(1), this.valueOf(2));
      default:
        return project(...this.sources.map((_, i) => this.valueOf(i)));
    }
  }

  /** Pushes the value to the listeners if it changed since the last push. */
  emit(): void {
    if (!this.hasValue || this.emittedVersion === this.version) return;
    this.emittedVersion = this.version;
    this.listeners.emit(this.value as TValue);
  }

  /** Adds a listener of `emit()`; returns its removal. A completed node completes it at once. */
  listen(listener: NodeListener<TValue>): () => void {
    return this.listeners.add(listener);
  }

  /** Completes every listener (the session was disposed, or the node left the graph). */
  complete(): void {
    this.listeners.complete();
  }
}
