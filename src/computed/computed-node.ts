import { Subject } from 'rxjs';
import type { SessionReader, SliceDef } from '../slices/reducer';
import type { SessionInternals } from '../session/internals';
import { ComputedError } from './computed-errors';
import type { ComputedDef } from './define-computed';

/** @internal Where a node reads one of its sources. */
export type NodeSource =
  | { readonly slice: SliceDef<string, any>; readonly node?: undefined }
  | { readonly slice?: undefined; readonly node: ComputedNode<any> };

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
  /** Version last pushed to `changes` (each observer also drops repeats by `equals`). */
  emittedVersion = -1;
  readonly depth: number;
  readonly dependents = new Set<ComputedNode<any>>();
  readonly changes = new Subject<TValue>();
  observers = 0;
  /** Dropped from its family's cache while observed: detach when the last observer leaves. */
  orphan = false;

  constructor(
    readonly def: ComputedDef<string, TValue>,
    readonly sources: readonly NodeSource[],
    private readonly internals: SessionInternals,
    private readonly reader: SessionReader,
  ) {
    let depth = 0;
    for (const s of sources) if (s.node !== undefined) depth = Math.max(depth, s.node.depth);
    this.depth = depth + 1;
  }

  private sourceVersion(s: NodeSource): number {
    return s.node !== undefined ? s.node.version : this.internals.version(s.slice.name);
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
  }

  /** Brings the value up to date with the sources; never throws (failures are reported). */
  refresh(): void {
    const n = this.sources.length;
    let seen = this.seen;
    let stale = seen === undefined;
    for (let i = 0; i < n; i++) {
      const s = this.sources[i] as NodeSource;
      if (s.node !== undefined) s.node.refresh();
      if (!stale && this.sourceVersion(s) !== (seen as number[])[i]) stale = true;
    }
    if (!stale) return;
    seen = new Array<number>(n);
    const values = new Array<unknown>(n);
    let blocked: ComputedError | undefined;
    for (let i = 0; i < n; i++) {
      const s = this.sources[i] as NodeSource;
      seen[i] = this.sourceVersion(s);
      if (s.node === undefined) values[i] = this.reader.read(s.slice);
      else if (s.node.hasValue) values[i] = s.node.value;
      else blocked ??= s.node.failure;
    }
    this.seen = seen;
    if (blocked !== undefined) {
      // A source never produced a value (its failure was already reported): nothing to compute from.
      if (!this.hasValue) this.failure = blocked;
      return;
    }
    let next: TValue;
    try {
      next = this.def.project(...values);
    } catch (cause) {
      const error = new ComputedError(this.def.name, cause);
      if (!this.hasValue) this.failure = error;
      this.internals.reportError(error);
      return;
    }
    this.failure = undefined;
    if (this.hasValue && this.def.equals(this.value as TValue, next)) return;
    this.value = next;
    this.hasValue = true;
    this.version++;
  }

  /** Pushes the value to observers if it changed since the last push. */
  emit(): void {
    if (!this.hasValue || this.emittedVersion === this.version) return;
    this.emittedVersion = this.version;
    this.changes.next(this.value as TValue);
  }
}
