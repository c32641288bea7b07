import type { BaseSlice, JournalOp } from './journal-format';
import { replayJournalOp, type ReplayState } from './journal-replay';

// Folding a slice's journal records while the journal is scanned. Opening a directory used to
// keep every parsed record until the session opened its slice (the slice definitions are not
// known while the journal is read); on a long journal those parse trees outlived many young
// collections, and copying and promoting them was most of the cost of an open. A fold applies
// each record's ops to running arrays as soon as the record is checked, so only the items that
// are still live survive the scan, and what it leaves is the same `{ base, records }` pair the
// storage opens (and compacts) from: the folded content as a base, with no records after it.

/** A slice's stored data not yet opened by a session: an optional base and the records after it. */
export interface RawSlice {
  base: BaseSlice | undefined;
  records: RawRecord[];
}

/** One record's change of one slice, as stored. */
export interface RawRecord {
  at: number;
  v: number;
  ops: readonly JournalOp[];
}

const NOTHING: readonly unknown[] = Object.freeze([]);

/**
 * @internal The records of one slice, folded while they are read. A fold needs a content that
 * does not depend on what it cannot know during the scan (the definition's `initial` items and
 * schema version), so it runs in one of three modes:
 *
 * - known content (the base file held the slice's items, or a restore op set them): every op is
 *   applied with {@link replayJournalOp}, exactly as opening replays it, with items kept at
 *   their stored version `v` (migrated once, when the slice is opened);
 * - appends after the definition's initial items (no base items yet): only appends (and a
 *   restore, which makes the content known) are folded; they are kept as appends;
 * - records: anything else (an op that depends on the initial items, a record of another schema
 *   version than the folded items, an op kind this fold does not know) ends the folding of
 *   this slice; what was folded becomes an equivalent base or records, and the remaining records
 *   are kept as they are, as opening did before.
 */
export class SliceFold {
  /** Mode: `'known'`, `'appends'` (after the initial items) or `'records'`. */
  private mode: 'known' | 'appends' | 'records';
  /** Stored schema version of the folded items (undefined: none folded yet, appends mode). */
  private v: number | undefined;
  private state: ReplayState<unknown>;
  private readonly raw: RawSlice;

  constructor(base: BaseSlice | undefined) {
    this.raw = { base, records: [] };
    if (base?.items !== undefined) {
      const items = base.items as unknown[];
      const times = Array.isArray(base.times) && base.times.length === items.length ? (base.times as number[]) : items.map(() => 0);
      this.state = { items, times, start: 0, appended: base.appended ?? items.length };
      this.v = base.v;
      this.mode = 'known';
    } else {
      this.state = { items: [], times: [], start: 0, appended: 0 };
      this.v = undefined;
      this.mode = 'appends';
    }
    if (base?.tail !== undefined) for (const rec of base.tail) this.add(rec.at, rec.v, rec.ops);
  }

  /** Folds (or keeps) one record's change of this slice: `ops` at time `at` (ms), items at schema version `v`. */
  add(at: number, v: number, ops: readonly JournalOp[]): void {
    if (this.mode !== 'records' && (this.v === undefined || this.v === v) && this.foldable(ops)) {
      this.v = v;
      const s = this.state;
      for (let i = 0; i < ops.length; i++) {
        const op = ops[i] as JournalOp;
        if (this.mode === 'appends' && op[0] === 'a') {
          const items = op[1];
          // (`appended` is counted when these appends are replayed onto the initial items.)
          for (let k = 0; k < items.length; k++) {
            s.items.push(items[k]);
            s.times.push(at);
          }
          continue;
        }
        // A restore op in appends mode: its items and `appended` are the whole content.
        if (this.mode === 'appends') this.state = { items: [], times: [], start: 0, appended: 0 };
        this.mode = 'known';
        replayJournalOp(this.state, op, at, identity);
      }
      return;
    }
    if (this.mode !== 'records') this.stopFolding();
    this.raw.records.push({ at, v, ops });
  }

  /** True when every op of `ops` can be folded in the current mode. */
  private foldable(ops: readonly JournalOp[]): boolean {
    let known = this.mode === 'known';
    for (let i = 0; i < ops.length; i++) {
      const op = ops[i] as JournalOp;
      const kind = op[0];
      if (kind === 's') {
        // Replayed onto the initial items, a restore keeps the time of an item identical to the one
        // at its index (a primitive can be; parsed objects never are): unknown until the slice opens.
        if (!known && (op[1] as readonly unknown[]).some(isPrimitive)) return false;
        known = true;
      } else if (kind === 'a') continue;
      else if (!known || !FOLDED_KINDS.has(kind)) return false;
    }
    return true;
  }

  /** Turns what was folded into an equivalent base (known content) or records (appends). */
  private stopFolding(): void {
    const s = this.state;
    const raw = this.raw;
    if (this.mode === 'known') {
      const items = s.start === 0 ? s.items : s.items.slice(s.start);
      const times = s.start === 0 ? s.times : s.times.slice(s.start);
      raw.base = { v: this.v as number, items, times, appended: s.appended };
    } else if (this.v !== undefined) {
      // Appends after the initial items, one record per time (same items, times and `appended`).
      for (let i = 0; i < s.items.length; ) {
        const at = s.times[i] as number;
        let j = i + 1;
        while (j < s.items.length && s.times[j] === at) j++;
        raw.records.push({ at, v: this.v, ops: [['a', s.items.slice(i, j)]] });
        i = j;
      }
    }
    this.state = { items: NOTHING as unknown[], times: [], start: 0, appended: 0 };
    this.mode = 'records';
  }

  /** The slice's stored data: the folded content as a base, or the base and records to replay. */
  finish(): RawSlice {
    if (this.mode !== 'records') this.stopFolding();
    return this.raw;
  }
}

/** Op kinds a fold applies to a known content (the others end the fold: their records are kept). */
const FOLDED_KINDS = new Set<string>(['a', 'r', 's', 'u', 'c', 'f', 'b', 'i']);

const identity = (stored: readonly unknown[]): unknown[] => stored as unknown[];

const isPrimitive = (item: unknown): boolean => item === null || typeof item !== 'object';
