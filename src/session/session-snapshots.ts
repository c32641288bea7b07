import { toIssues } from '../internal/errors';
import { deepFreeze } from '../internal/freeze';
import type { SliceDef } from '../slices/reducer';
import { InvalidSnapshotError, UnknownSliceError } from '../snapshots/codec';
import { checkedDefOf, makeSnapshot, snapshotEntries, snapshotSource, type Snapshot, type SnapshotSlice } from '../snapshots/snapshot';
import type { StorageTransaction, StoredSlice } from '../storage/slice-storage';
import { InvalidSliceItemError, SliceNotRegisteredError } from './errors';
import type { SliceRecord } from './slice-handle';

/**
 * The slices a session's `snapshot()` captures, in registration order, with their last entries.
 * Every snapshot keeps its plan (privately), so restoring it needs no lookups by name.
 */
interface CapturePlan {
  /** The session's snapshots: tells its own snapshots from any other. */
  readonly owner: SessionSnapshots;
  /** How many slices the session had when the plan was made. */
  readonly recordCount: number;
  readonly names: readonly string[];
  readonly records: readonly SliceRecord<any>[];
  /** The last entry captured per slice (reused while the slice's version is unchanged). */
  readonly captured: (SnapshotSlice | undefined)[];
  /** The definition of slice `name` (a `SnapshotProvenance`: another session with the same definitions trusts the items). */
  defOf(name: string): SliceDef<string, unknown> | undefined;
}

/** @internal Opens the transaction of a slice for the envelope being reduced (see `SessionCore`). */
export interface PendingTransactions {
  pendingOf(record: SliceRecord<any>): StorageTransaction<any>;
}

/**
 * @internal Takes and restores the snapshots of one session: `session.snapshot()`, the checks of
 * `session.restore()`, and the restore step of `rxslice.session.restored`.
 *
 * Its own concept, kept out of `createSession` (which is about the dispatch pipeline): the
 * session calls it from `snapshot()`, `restore()` and the reduce step of the restored event.
 */
export class SessionSnapshots {
  /** Plans for `snapshot()` (state slices only) and `snapshot({ includeLogs: true })`. */
  private statePlan: CapturePlan | undefined = undefined;
  private fullPlan: CapturePlan | undefined = undefined;

  constructor(
    private readonly records: ReadonlyMap<string, SliceRecord<any>>,
    private readonly freeze: boolean,
  ) {}

  /** Captures the state slices (and logs with `includeLogs`) in O(number of slices). */
  take(seq: number, at: number, tag: string | undefined, includeLogs: boolean): Snapshot {
    const plan = this.plan(includeLogs);
    const { records: list, captured } = plan;
    const entries = new Array<SnapshotSlice>(list.length);
    for (let i = 0; i < list.length; i++) {
      const record = list[i] as SliceRecord<any>;
      const storage = record.storage;
      // One entry per slice version, shared by every snapshot taken at that version.
      let entry = captured[i];
      if (entry === undefined || entry.version !== storage.version) {
        const stored = storage.snapshot();
        entry = { policy: record.def.policy, version: storage.version, items: stored.items, stored };
        captured[i] = this.freeze ? Object.freeze(entry) : entry;
      }
      entries[i] = entry;
    }
    return makeSnapshot(seq, at, tag, plan.names, entries, plan);
  }

  /**
   * The names `restore(snapshot, { slices })` restores, checked.
   * @throws {@link UnknownSliceError} when a name is not registered or not in the snapshot.
   */
  namesToRestore(snapshot: Snapshot, slices: readonly string[] | undefined): readonly string[] {
    // A whole snapshot of this session names registered slices only (slices are never removed).
    const plan = slices === undefined ? this.ownPlan(snapshot) : undefined;
    if (plan !== undefined) return plan.names;
    const names = slices ?? Object.keys(snapshot.slices);
    for (const name of names) {
      if (!this.records.has(name)) throw new UnknownSliceError(name, [...this.records.keys()]);
      if (!(name in snapshot.slices)) throw new UnknownSliceError(name, Object.keys(snapshot.slices));
    }
    return names;
  }

  /**
   * The snapshot to restore `names` from: `snapshot` itself when this session took it, or when
   * its maker vouches that each slice's items were made under the same definition (a session or
   * `snapshotFromJSON` given the same `SliceDef`); else a copy whose items were validated with
   * the registered slices' schemas and deep-frozen, so that an in-memory snapshot from elsewhere
   * (another session's definitions, a hand-made object) cannot bypass the schemas, or change the
   * session later through arrays its maker still holds.
   * @throws {@link InvalidSliceItemError} when an item does not match its slice's schema, and
   * {@link InvalidSnapshotError} when a slice entry has no items array; nothing is restored then.
   */
  checked(snapshot: Snapshot, names: readonly string[]): Snapshot {
    if (this.ownPlan(snapshot) !== undefined) return snapshot;
    let copied = false;
    const entries = names.map((name) => {
      const record = this.records.get(name) as SliceRecord<any>;
      const entry = snapshot.slices[name] as Partial<SnapshotSlice> | undefined;
      if (checkedDefOf(snapshot, name) === record.def) return entry as SnapshotSlice;
      if (entry === undefined || entry === null || !Array.isArray(entry.items)) {
        throw new InvalidSnapshotError(`slice "${name}" has no items array`);
      }
      const schema = record.def.schema;
      const items = entry.items.map((item: unknown, index: number) => {
        // zod's output is a copy; without a schema, copy the item so its maker cannot change it later.
        if (schema === undefined) return deepFreeze(structuredClone(item));
        const r = schema.safeParse(item);
        if (!r.success) throw new InvalidSliceItemError(name, index, toIssues(r.error.issues));
        return deepFreeze(r.data);
      });
      copied = true;
      return Object.freeze({ policy: record.def.policy, version: 0, items: Object.freeze(items) }) as SnapshotSlice;
    });
    return copied ? makeSnapshot(snapshot.seq, snapshot.at, snapshot.tag, names, entries) : snapshot;
  }

  /**
   * Restores `names` (the payload of the restored event) from `snapshot` into the transactions
   * `pending.pendingOf` opens (one per slice and envelope): by the snapshot's plan when it is
   * a whole snapshot of this session, else by name. Backends restore their own captures without copying.
   * @throws {@link SliceNotRegisteredError} when a name is not registered.
   */
  restore(snapshot: Snapshot, names: readonly string[], at: number, pending: PendingTransactions): void {
    const plan = this.ownPlan(snapshot);
    if (plan !== undefined && names === plan.names) {
      const entries = snapshotEntries(snapshot) as readonly SnapshotSlice[];
      for (let i = 0; i < plan.records.length; i++) {
        const stored = (entries[i] as SnapshotSlice).stored as StoredSlice<unknown>;
        pending.pendingOf(plan.records[i] as SliceRecord<any>).restore(stored, at);
      }
      return;
    }
    for (const name of names) {
      const record = this.records.get(name);
      if (record === undefined) throw new SliceNotRegisteredError(name);
      const s = snapshot.slices[name] as SnapshotSlice;
      const tx = pending.pendingOf(record);
      if (s.stored !== undefined) tx.restore(s.stored, at);
      else tx.replace(s.items, at);
    }
  }

  /** The plan of the slices to capture, rebuilt only when a slice was added since. */
  private plan(includeLogs: boolean): CapturePlan {
    const plan = includeLogs ? this.fullPlan : this.statePlan;
    if (plan !== undefined && plan.recordCount === this.records.size) return plan;
    const list: SliceRecord<any>[] = [];
    for (const record of this.records.values()) if (includeLogs || record.def.policy !== 'log') list.push(record);
    const names = Object.freeze(list.map((r) => r.def.name));
    const next: CapturePlan = {
      owner: this,
      recordCount: this.records.size,
      names,
      records: list,
      captured: list.map(() => undefined),
      defOf: (name) => list[names.indexOf(name)]?.def,
    };
    if (includeLogs) this.fullPlan = next;
    else this.statePlan = next;
    return next;
  }

  /** The plan of a snapshot this session took, or `undefined` for any other snapshot. */
  private ownPlan(snapshot: Snapshot): CapturePlan | undefined {
    const source = snapshotSource(snapshot) as CapturePlan | undefined;
    return source !== undefined && source.owner === this ? source : undefined;
  }
}
