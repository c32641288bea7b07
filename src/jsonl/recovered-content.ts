import { deepFreeze } from '../internal/freeze';
import { migrateItems } from '../slices/migrations';
import type { SliceDef } from '../slices/reducer';
import type { StoredSliceDef } from '../storage/slice-storage';
import type { RawSlice } from './journal-recovery';
import { replayJournalOp } from './journal-replay';

/** The content of one slice as a reopened journal holds it (see {@link recoveredContent}). */
export interface RecoveredContent<TItem> {
  /** The items, migrated to the slice's version (deep-frozen with `freeze`). */
  readonly items: TItem[];
  /** Each item's time (ms since the epoch), or undefined when the base file kept none and no record was replayed. */
  readonly times: number[] | undefined;
  /** How many items were ever appended (the slice's `appended` counter). */
  readonly appended: number;
}

/**
 * @internal The recovered content of `def` from what a reopened journal read of it (`raw`: its
 * base, then the journal's records; undefined: nothing stored, the slice's `initial` items),
 * migrated to `def.version` (`migrateItems`) and, with `freeze`, deep-frozen: fresh arrays the
 * caller may own. Records are replayed with the memory backend's semantics (`replayJournalOp`).
 * @throws `SliceVersionError`/`MigrationError` when stored items cannot be migrated.
 * @example
 * ```ts
 * const { items, appended } = recoveredContent(Plan, journal.raw.get('plan'), true);
 * ```
 */
export function recoveredContent<TItem>(def: StoredSliceDef<TItem>, raw: RawSlice | undefined, freeze: boolean): RecoveredContent<TItem> {
  const version = def.version ?? 1;
  const migrate = (items: readonly unknown[], v: number): TItem[] => {
    const out = v === version ? (items as TItem[]) : migrateItems(def as SliceDef<string, TItem>, items, v);
    if (freeze) for (const item of out) deepFreeze(item);
    return out;
  };
  let items: TItem[];
  let times: number[] | undefined;
  let appended: number;
  if (raw?.base?.items !== undefined) {
    const base = raw.base;
    items = migrate(base.items as readonly unknown[], base.v);
    if (Array.isArray(base.times) && base.times.length === items.length) times = base.times;
    appended = base.appended ?? items.length;
  } else {
    items = def.initial as TItem[];
    appended = items.length;
  }
  if (raw !== undefined && raw.records.length > 0) {
    // Replays every record into plain arrays with the memory backend's semantics, then loads
    // the result once (one memory transaction per record cost more than the replay itself).
    const state = { items: items.slice(), times: times === undefined ? items.map(() => 0) : times.slice(), start: 0, appended };
    for (const rec of raw.records) {
      for (const op of rec.ops) replayJournalOp(state, op, rec.at, (stored) => migrate(stored, rec.v));
    }
    items = state.start === 0 ? state.items : state.items.slice(state.start);
    // A fresh array either way: the backend owns it.
    times = state.start === 0 && state.times !== times ? state.times : state.times.slice(state.start);
    appended = state.appended;
  } else if (times !== undefined) {
    times = times.slice();
  }
  return { items, times, appended };
}
