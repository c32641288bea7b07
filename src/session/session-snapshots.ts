import { codedMessage } from '../internal/coded-message';
import { DEV } from '../internal/dev';
import { isRxSliceError } from '../internal/errors';
import { deepFreeze } from '../internal/freeze';
import { InvalidSnapshotError, UnknownSliceError } from '../snapshots/codec';
import { checkedDefOf, makeDeferredSnapshot, makeSnapshot, parentsAfterRestoring, snapshotCaptures, snapshotSource, type Snapshot, type SnapshotSlice } from '../snapshots/snapshot';
import type { SliceStorage, StorageTransaction, StoredSlice } from '../storage/slice-storage';
import { MemoryStorage } from '../storage/memory-storage';
import { applyWindow, importItem } from './apply-op';
import { SliceNotRegisteredError } from './errors';
import type { SliceRecord } from './slice-handle';
import { clip, messageOf, quote } from '../internal/quote';
import { keptCapture, keptDelta, swapped, type CapturePlan, type RestoredSlices } from './capture-plan';

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
  /** Plans of selections (`include` / `exclude`), by selection key; at most {@link MAX_SELECTED_PLANS}. */
  private readonly selectedPlans = new Map<string, CapturePlan>();
  /** Lineage: parents of the next snapshots (the id of the snapshot last restored, if any). */
  private parents: readonly string[] = NO_PARENTS;
  /**
   * How many times a slice's window was set or removed at run time (`configure`): a plan's
   * {@link CapturePlan.windowlessAt} holds while this stays the same.
   */
  windowChanges = 0;
  /** `session.transaction`'s rollback points (see {@link SessionSnapshots.rollbackPoint}). */
  private readonly rollbackPoints = new WeakSet<Snapshot>();

  constructor(
    private readonly records: ReadonlyMap<string, SliceRecord<any>>,
    private readonly freeze: boolean,
  ) {}

  /**
   * Captures the state slices (and logs with `includeLogs`) in O(number of slices); with
   * `selection`, exactly the slices it names (`include`, any policy) or the default set minus
   * `exclude`.
   * @throws {@link UnknownSliceError} for a name the session does not have; `InvalidSnapshotError`
   * for `include` and `exclude` that share a name.
   */
  take(seq: number, at: number, tag: string | undefined, includeLogs: boolean, selection?: SliceSelection): Snapshot {
    const plan = selection === undefined ? this.plan(includeLogs) : this.selectedPlan(includeLogs, selection);
    const list = plan.storages;
    // The storages' captures and versions only: entries are made when the snapshot is read.
    // The captures are those of the plan's last snapshot (taken or restored) when no slice changed
    // since but by that restore, and the versions differ from the first slice's as they did in the
    // plan's last snapshot when the slices changed alike since (a whole restore changes each
    // once): both arrays are shared then (never written after they were made), so a snapshot
    // after a restore allocates no array (fewer young objects per snapshot + restore, so fewer
    // scavenges fall into a new session's first calls).
    const last = plan.lastStored;
    const lastDeltas = plan.deltas;
    const base = list[0]?.version ?? 0;
    if (plan.validAt === seq && last !== undefined && lastDeltas !== undefined) {
      return makeDeferredSnapshot(seq, at, tag, plan.names, last, base, lastDeltas, plan, this.parents);
    }
    let made: StoredSlice<unknown>[] | undefined;
    let deltas: number[] | undefined;
    for (let i = 0; i < list.length; i++) {
      const storage = list[i] as SliceStorage<unknown>;
      made = keptCapture(made, last, i, storage.snapshot());
      deltas = keptDelta(deltas, lastDeltas, i, storage.version - base);
    }
    // (A plan of no slices makes its empty lists once.)
    if (made !== undefined || last === undefined) plan.lastStored = made ??= [];
    if (deltas !== undefined || lastDeltas === undefined) plan.deltas = deltas ??= [];
    plan.validAt = seq;
    return makeDeferredSnapshot(seq, at, tag, plan.names, made ?? (last as readonly StoredSlice<unknown>[]), base, deltas ?? (lastDeltas as readonly number[]), plan, this.parents);
  }

  /**
   * The state slices, taken as `session.transaction`'s rollback point: restoring it puts the
   * lineage back as it was too (the snapshots taken after a rollback have the parents they would
   * have had without the transaction), as the point is in no catalogue.
   */
  rollbackPoint(seq: number, at: number): Snapshot {
    const snapshot = this.take(seq, at, 'rxslice.transaction', false);
    this.rollbackPoints.add(snapshot);
    return snapshot;
  }

  /** Records `id` (of `snapshot`) as the parent of the snapshots taken from now on (a restore happened). */
  restoredFrom(snapshot: Snapshot, id: string | undefined): void {
    // The tag first: one field read on every restore, the set only for a transaction's point.
    if (snapshot.tag === 'rxslice.transaction' && this.rollbackPoints.has(snapshot)) this.parents = snapshot.parents;
    else this.parents = id === undefined ? NO_PARENTS : parentsAfterRestoring(snapshot, id);
  }

  /** The plan of a selection, cached by its names (rebuilt when a slice was added since). */
  private selectedPlan(includeLogs: boolean, selection: SliceSelection): CapturePlan {
    const { include, exclude } = selection;
    const known = () => [...this.records.keys()];
    for (const name of [...(include ?? []), ...(exclude ?? [])]) if (!this.records.has(name)) throw new UnknownSliceError(name, known(), 'session');
    if (include !== undefined && exclude !== undefined) {
      const both = include.filter((n) => exclude.includes(n));
      if (both.length > 0) throw new InvalidSnapshotError(!DEV ? codedMessage('E64', both.map((n) => quote(n)).join(', ')) : `include and exclude both name ${both.map((n) => `${quote(n)}`).join(', ')}; a slice is either captured or not`);
    }
    const key = `${includeLogs ? 'L' : 'S'}|${include === undefined ? '*' : include.join('\u0000')}|${(exclude ?? []).join('\u0000')}`;
    const cached = this.selectedPlans.get(key);
    if (cached !== undefined && cached.recordCount === this.records.size) return cached;
    const list: SliceRecord<any>[] = [];
    if (include !== undefined) {
      for (const name of new Set(include)) if (!(exclude ?? []).includes(name)) list.push(this.records.get(name) as SliceRecord<any>);
    } else {
      for (const record of this.records.values()) {
        if ((includeLogs || record.def.policy !== 'log') && !(exclude ?? []).includes(record.def.name)) list.push(record);
      }
    }
    const plan = this.makePlan(list);
    if (this.selectedPlans.size >= MAX_SELECTED_PLANS) this.selectedPlans.delete(this.selectedPlans.keys().next().value as string);
    this.selectedPlans.set(key, plan);
    return plan;
  }

  private makePlan(list: SliceRecord<any>[]): CapturePlan {
    const names = Object.freeze(list.map((r) => r.def.name));
    // The entry of each slice's current capture, handed out again while the slice holds it at the
    // same version (a capture is one slice's content at one version, or restored later at
    // another); an earlier capture's entry is made for the snapshot that reads it, not kept. Not
    // a WeakMap keyed by captures: its entries hold the items, and every collection then traces
    // the ephemerons of each capture a snapshot was read at (a quarter of a 10 × 1,000-item JSON
    // round trip, issue 36).
    const lastEntries: (SnapshotSlice | undefined)[] = [];
    const freeze = this.freeze;
    const storages = list.map((r) => r.storage);
    const memory = storages.every((s) => s instanceof MemoryStorage) ? (storages as MemoryStorage<unknown>[]) : undefined;
    let nameSet: ReadonlySet<string> | undefined;
    return {
      nameSet: () => (nameSet ??= new Set(names)),
      owner: this,
      recordCount: this.records.size,
      names,
      records: list,
      storages,
      memory,
      swappable: [undefined, undefined],
      windowlessAt: -1,
      lastStored: undefined,
      deltas: undefined,
      validAt: -1,
      entry(index, stored, version) {
        const last = lastEntries[index];
        if (last !== undefined && last.stored === stored && last.version === version) return last;
        const made: SnapshotSlice = { policy: (list[index] as SliceRecord<any>).def.policy, version, items: stored.items, stored };
        const entry = freeze ? Object.freeze(made) : made;
        if ((list[index] as SliceRecord<any>).storage.snapshot() === stored) lastEntries[index] = entry;
        return entry;
      },
      defOf: (name) => list[names.indexOf(name)]?.def,
    };
  }

  /**
   * Reads and checks what `session.restore(snapshot, options)` was given, once, and returns the
   * snapshot to restore and the names of its slices to restore (see {@link checked}).
   * @throws {@link InvalidSnapshotError} when `snapshot` is not a snapshot (not an object, no
   * `slices` record, a bad `seq`, a getter or Proxy trap that throws) or `options.slices` is
   * not an array of names; {@link UnknownSliceError} when a name is not registered or not in the
   * snapshot; {@link InvalidSliceItemError} when an item is invalid. Nothing changes then.
   */
  prepareRestore(snapshot: unknown, options: unknown): { readonly snapshot: Snapshot; readonly names: readonly string[]; readonly id: string | undefined } {
    if (snapshot === null || typeof snapshot !== 'object') {
      throw new InvalidSnapshotError(!DEV ? codedMessage('E65', snapshot === null ? 'null' : typeof snapshot) : `expected a snapshot (from session.snapshot() or snapshotFromJSON), got ${snapshot === null ? 'null' : typeof snapshot}`);
    }
    try {
      const slices = namesOption(options);
      const plan = this.ownPlan(snapshot as Snapshot);
      // A whole snapshot of this session names registered slices only (slices are never removed).
      if (plan !== undefined && slices === undefined) return { snapshot: snapshot as Snapshot, names: plan.names, id: (snapshot as Snapshot).id };
      const rawId: unknown = (snapshot as { id?: unknown }).id;
      const id = typeof rawId === 'string' && rawId.length > 0 && rawId.length <= 200 ? rawId : undefined;
      const record = (snapshot as { slices?: unknown }).slices;
      if (record === null || typeof record !== 'object') throw new InvalidSnapshotError('it has no slices record');
      const present = Object.keys(record);
      const names = slices ?? present;
      for (const name of names) {
        if (!this.records.has(name)) throw new UnknownSliceError(name, [...this.records.keys()]);
        if (!Object.hasOwn(record, name)) throw new UnknownSliceError(name, present, 'snapshot');
      }
      return { snapshot: this.checked(snapshot as Snapshot, record as Snapshot['slices'], names), names, id };
    } catch (error) {
      if (isRxSliceError(error)) throw error;
      throw new InvalidSnapshotError(`reading it threw (${messageOf(error)})`);
    }
  }

  /**
   * The snapshot to restore `names` from: `snapshot` itself when this session took it, or when
   * its maker vouches that each slice's items were made under the same definition (a session or
   * `snapshotFromJSON` given the same `SliceDef`); else a copy whose items were imported one by
   * one (`importItem`: copied, checked to be plain JSON data, validated with the registered
   * slice's schema, deep-frozen), so that an in-memory snapshot from elsewhere (another
   * session's definitions, a hand-made object) cannot bypass the schemas, hold values its JSON
   * form would lose, or change the session later through objects its maker still holds.
   * @throws {@link InvalidSliceItemError} when an item is invalid, and {@link InvalidSnapshotError}
   * when a slice entry has no items array or `seq`/`tag` are malformed; nothing is restored then.
   */
  private checked(snapshot: Snapshot, slices: Snapshot['slices'], names: readonly string[]): Snapshot {
    if (this.ownPlan(snapshot) !== undefined) return snapshot;
    let copied = false;
    const entries = names.map((name) => {
      const record = this.records.get(name) as SliceRecord<any>;
      const entry = slices[name] as Partial<SnapshotSlice> | undefined;
      if (checkedDefOf(snapshot, name) === record.def) {
        // Made under the same definition, so valid as it is; a session that freezes its items
        // freezes them if their maker did not (`snapshotFromJSON` in production, or a session
        // without `freeze`). Frozen items are skipped: one `Object.isFrozen` each.
        if (this.freeze) {
          const items = (entry as SnapshotSlice).items;
          for (let i = 0; i < items.length; i++) deepFreeze(items[i]);
        }
        return entry as SnapshotSlice;
      }
      const items: unknown = entry === undefined || entry === null || typeof entry !== 'object' ? undefined : entry.items;
      if (!Array.isArray(items)) throw new InvalidSnapshotError(`slice ${quote(name)} has no items array`);
      const length = items.length;
      const imported = new Array<unknown>(length);
      for (let i = 0; i < length; i++) imported[i] = importItem(record, items[i], i);
      copied = true;
      return Object.freeze({ policy: record.def.policy, version: 0, items: Object.freeze(imported) }) as SnapshotSlice;
    });
    if (!copied) return snapshot;
    const { seq, at, tag } = snapshot as { seq: unknown; at: unknown; tag: unknown };
    if (typeof seq !== 'number' || !Number.isFinite(seq)) throw new InvalidSnapshotError('its seq is not a number');
    if (tag !== undefined && typeof tag !== 'string') throw new InvalidSnapshotError('its tag is not a string');
    return makeSnapshot(seq, typeof at === 'number' ? at : 0, tag, names, entries);
  }

  /**
   * Restores `names` (the payload of the restored event) from `snapshot` into the transactions
   * `pending.pendingOf` opens (one per slice and envelope): by the snapshot's plan when it is
   * a whole snapshot of this session, else by name. Backends restore their own captures without copying.
   * Returns the slices restored when they are exactly a plan's (the commit then reuses its lists).
   * `seq` is the restored event's, `lastSeq` the session's last committed one before it.
   * @throws {@link SliceNotRegisteredError} when a name is not registered.
   */
  restore(snapshot: Snapshot, names: readonly string[], at: number, seq: number, lastSeq: number, pending: PendingTransactions, direct: boolean): RestoredSlices | undefined {
    const plan = this.ownPlan(snapshot);
    if (plan !== undefined && names === plan.names) {
      const records = plan.records;
      const captures = snapshotCaptures(snapshot) as readonly StoredSlice<unknown>[];
      if (direct && plan.memory !== undefined && swapped(plan, plan.memory, captures, this.windowChanges)) {
        // The slices hold these captures again (memory storage swaps them back in as they are),
        // and each is one version up: the version differences of a snapshot taken at the last
        // commit still hold after this one.
        plan.lastStored = captures;
        plan.validAt = plan.validAt === lastSeq ? seq : -1;
        return plan;
      }
      for (let i = 0; i < records.length; i++) {
        const record = records[i] as SliceRecord<any>;
        const tx = pending.pendingOf(record);
        tx.restore(captures[i] as StoredSlice<unknown>, at);
        if (record.window !== undefined) applyWindow(record, tx, seq, at);
      }
      return plan;
    }
    for (const name of names) {
      const record = this.records.get(name);
      if (record === undefined) throw new SliceNotRegisteredError(name);
      const s = snapshot.slices[name] as SnapshotSlice;
      const tx = pending.pendingOf(record);
      if (s.stored !== undefined) tx.restore(s.stored, at);
      else tx.replace(s.items, at);
      // The slice's current window applies to what was restored (a snapshot from JSON or from
      // before a `configure` may hold more); the evicted items are reported with the commit.
      if (record.window !== undefined) applyWindow(record, tx, seq, at);
    }
    return undefined;
  }

  /** The plan of the slices to capture, rebuilt only when a slice was added since. */
  private plan(includeLogs: boolean): CapturePlan {
    const plan = includeLogs ? this.fullPlan : this.statePlan;
    if (plan !== undefined && plan.recordCount === this.records.size) return plan;
    const list: SliceRecord<any>[] = [];
    for (const record of this.records.values()) if (includeLogs || record.def.policy !== 'log') list.push(record);
    const next = this.makePlan(list);
    if (includeLogs) this.fullPlan = next;
    else this.statePlan = next;
    return next;
  }

  /**
   * The names of the slices of `snapshot` when this session took it (what a whole restore of it
   * restores, as `prepareRestore` would return them), else `undefined` (check it with `prepareRestore`).
   */
  namesOfOwn(snapshot: unknown): readonly string[] | undefined {
    return snapshot !== null && typeof snapshot === 'object' ? this.ownPlan(snapshot as Snapshot)?.names : undefined;
  }

  /** The plan of a snapshot this session took, or `undefined` for any other snapshot (or value). */
  private ownPlan(snapshot: Snapshot): CapturePlan | undefined {
    const source = snapshotSource(snapshot) as CapturePlan | undefined;
    return source !== undefined && source.owner === this ? source : undefined;
  }
}

/** The slices a selective snapshot names (see `SnapshotOptions`), as names. */
export interface SliceSelection {
  readonly include?: readonly string[] | undefined;
  readonly exclude?: readonly string[] | undefined;
}

const NO_PARENTS: readonly string[] = Object.freeze([]);

const MAX_SELECTED_PLANS = 32;

/**
 * Slice names from a list of slice definitions or names, read once and checked.
 * @throws {@link InvalidSnapshotError} (`what` names the option) for a non-array or an entry that
 * is neither a name nor a definition.
 */
export function sliceNames(list: unknown, what: string): readonly string[] | undefined {
  if (list === undefined) return undefined;
  if (!Array.isArray(list)) throw new InvalidSnapshotError(`${what} must be an array of slice definitions or names`);
  const names = [...(list as unknown[])].map((entry) => {
    if (typeof entry === 'string') return entry;
    const name: unknown = entry !== null && typeof entry === 'object' ? (entry as { name?: unknown }).name : undefined;
    if (typeof name !== 'string') throw new InvalidSnapshotError(!DEV ? codedMessage('E66', `${what}: ${typeof entry === 'object' ? 'object' : clip(entry)}`) : `${what} holds ${typeof entry === 'object' ? 'an object without a name' : clip(entry)}, not a slice definition or name`);
    return name;
  });
  return names;
}

/** `options.slices` of `restore`, read once and checked. @throws {@link InvalidSnapshotError} */
function namesOption(options: unknown): readonly string[] | undefined {
  if (options === undefined || options === null) return undefined;
  if (typeof options !== 'object') throw new InvalidSnapshotError(!DEV ? codedMessage('E67', typeof options) : 'restore options must be an object such as { slices: ["plan"] }');
  return sliceNames((options as { slices?: unknown }).slices, 'restore option "slices"');
}
