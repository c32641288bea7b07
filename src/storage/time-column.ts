/** Times per chunk (a power of two): a full chunk is 64 KiB of `Int32Array`. */
const CHUNK_BITS = 14;
const CHUNK = 1 << CHUNK_BITS;
const MASK = CHUNK - 1;
/** The first chunk starts this small and doubles up to {@link CHUNK}. */
const FIRST_CAPACITY = 256;
/**
 * Up to this many times a column is a plain array (a state slice replaced on every event makes a
 * one-item column each time: an array is cheaper to make than a typed array); past it, chunks.
 */
const SMALL_MAX = 4096;
const INT32_MIN = -0x80000000;
const INT32_MAX = 0x7fffffff;
/** The chunk list of every column that has none yet (never written: a column makes its own on the first chunk). */
const NO_CHUNKS: (Int32Array | Float64Array)[] = [];
/** The column `TimeColumn.sealedSingle` made last (never written: only sealed contents hold it). */
let lastSealedSingle: TimeColumn | undefined;

/**
 * @internal The commit times (ms, `scheduler.now()`) of a slice's items, one per item, in an
 * append-only column shared by the versions of the slice the way its item buffer is (indices
 * below a version's end are never rewritten; `truncate` only drops what a rolled-back or
 * evicting transaction pushed itself).
 *
 * A small column (up to {@link SMALL_MAX} times) is a plain array; a larger one is stored as 4-byte signed offsets from the column's origin (its first time) in `Int32Array`
 * chunks of {@link CHUNK} entries: a 1M-item log costs ~4 bytes per item for its times instead of
 * an 8-byte double plus the array's growth slack. Times that do not fit (not an integer, or more
 * than ~24.8 days from the origin: a scheduler with fractional or far-apart virtual times) turn
 * the column, once, into `Float64Array` chunks of absolute times: the same values, 8 bytes each.
 */
export class TimeColumn {
  /** Number of times held. */
  length = 0;
  /** The times while the column is small (see {@link SMALL_MAX}); `undefined` once in chunks. */
  private small: number[] | undefined;
  /**
   * Offsets from `origin` (`Int32Array`), or absolute times after the fallback (`Float64Array`).
   * Shared {@link NO_CHUNKS} until the first chunk (a small column, the common case, makes no array for it).
   */
  private chunks: (Int32Array | Float64Array)[] = NO_CHUNKS;
  private origin = 0;
  private wide = false;

  /** A column of `count` copies of `at`. */
  static filled(count: number, at: number): TimeColumn {
    const column = new TimeColumn();
    for (let i = 0; i < count; i++) column.push(at);
    return column;
  }

  /**
   * A column over `times` itself (taken over, not copied: the caller gives it up), whatever its
   * length: a `replace` builds its times in a plain array in one tight loop. Pushing past
   * {@link SMALL_MAX} then moves the column into chunks once.
   */
  static adopt(times: number[]): TimeColumn {
    return new TimeColumn(times);
  }

  /**
   * An empty column, or (internal) one over `small`, taken over, or one holding the single time
   * `single` (see {@link TimeColumn.single}).
   */
  constructor(small?: number[], single?: number) {
    if (single !== undefined) {
      // One time, kept in `origin`: no array (a state slice changed on every event makes one
      // such column per change). The first push moves it into a small array.
      this.small = undefined;
      this.origin = single;
      this.length = 1;
      return;
    }
    const times = small ?? [];
    this.small = times;
    this.length = times.length;
  }

  /** A column holding the one time `at`, made without an array. */
  static single(at: number): TimeColumn {
    return new TimeColumn(undefined, at);
  }

  /**
   * A one-time column for a content that is never written in place (a sealed content: the next
   * append copies its column first, see `MemoryStage.own`): the same column while `at` stays the
   * same, so that the events of one clock tick that each replace a one-item slice share it.
   */
  static sealedSingle(at: number): TimeColumn {
    const last = lastSealedSingle;
    if (last !== undefined && last.origin === at) return last;
    return (lastSealedSingle = new TimeColumn(undefined, at));
  }

  /** True while the column is one time kept in `origin` (see the constructor). */
  private get isSingle(): boolean {
    return this.small === undefined && this.chunks === NO_CHUNKS && this.length === 1;
  }

  /** A column holding `times`, in order. */
  static from(times: ArrayLike<number>): TimeColumn {
    const column = new TimeColumn();
    for (let i = 0; i < times.length; i++) column.push(times[i] as number);
    return column;
  }

  /** The time at `index` (`undefined` outside `[0, length)`). O(1). */
  get(index: number): number | undefined {
    if (index < 0 || index >= this.length) return undefined;
    const small = this.small;
    if (small !== undefined) return small[index];
    // In chunks with no chunk yet: the single time (see the constructor).
    if (this.chunks === NO_CHUNKS) return this.origin;
    const v = (this.chunks[index >>> CHUNK_BITS] as Int32Array | Float64Array)[index & MASK] as number;
    return this.wide ? v : this.origin + v;
  }

  /** Appends `at`. O(1) amortized. */
  push(at: number): void {
    if (this.isSingle) {
      this.small = [this.origin];
      this.origin = 0;
    }
    const i = this.length;
    const small = this.small;
    if (small !== undefined) {
      if (i < SMALL_MAX) {
        small.push(at);
        this.length = i + 1;
        return;
      }
      this.small = undefined;
      this.length = 0;
      for (let k = 0; k < i; k++) this.push(small[k] as number);
      this.push(at);
      return;
    }
    if (i === 0 && !this.wide) this.origin = Number.isSafeInteger(at) ? at : 0;
    let value = at;
    if (!this.wide) {
      value = at - this.origin;
      // (`origin + value !== at`: a time the subtraction rounded, e.g. 5e-324 - 1.)
      if (!Number.isInteger(value) || value < INT32_MIN || value > INT32_MAX || this.origin + value !== at) {
        this.widen();
        value = at;
      }
    }
    const c = i >>> CHUNK_BITS;
    let chunk = this.chunks[c];
    const j = i & MASK;
    if (chunk === undefined) {
      chunk = this.wide ? new Float64Array(c === 0 ? FIRST_CAPACITY : CHUNK) : new Int32Array(c === 0 ? FIRST_CAPACITY : CHUNK);
      if (this.chunks === NO_CHUNKS) this.chunks = [];
      this.chunks[c] = chunk;
    } else if (j >= chunk.length) {
      // Only the first chunk grows (doubling up to a full chunk); later chunks are born full.
      const grown = this.wide ? new Float64Array(Math.min(CHUNK, chunk.length * 2)) : new Int32Array(Math.min(CHUNK, chunk.length * 2));
      grown.set(chunk as never);
      chunk = this.chunks[c] = grown;
    }
    chunk[j] = value;
    this.length = i + 1;
  }

  /** Drops the times from `length` on (`length` ≤ the current length). */
  truncate(length: number): void {
    if (length < this.length) {
      this.length = length;
      if (this.small !== undefined) {
        this.small.length = length;
        return;
      }
      // Chunks past the new end are released; the one holding the end is kept (rewritten by later pushes).
      if (this.chunks !== NO_CHUNKS) this.chunks.length = Math.ceil(length / CHUNK);
    }
  }

  /** A new column with the times of `[start, end)`. O(end - start). */
  slice(start: number, end: number): TimeColumn {
    if (this.small !== undefined) return TimeColumn.adopt(this.small.slice(Math.max(0, start), Math.min(end, this.length)));
    const column = new TimeColumn();
    const stop = Math.min(end, this.length);
    for (let i = Math.max(0, start); i < stop; i++) column.push(this.get(i) as number);
    return column;
  }

  /** The times of `[start, end)` as a plain array (for serialisation). */
  toArray(start = 0, end = this.length): number[] {
    const stop = Math.min(end, this.length);
    if (this.small !== undefined) return this.small.slice(Math.max(0, start), stop);
    const out: number[] = [];
    for (let i = Math.max(0, start); i < stop; i++) out.push(this.get(i) as number);
    return out;
  }

  /** Switches to absolute `Float64Array` chunks (once; the values are unchanged). */
  private widen(): void {
    const origin = this.origin;
    this.chunks = this.chunks.map((chunk) => {
      const wide = new Float64Array(chunk.length);
      for (let k = 0; k < chunk.length; k++) wide[k] = origin + (chunk[k] as number);
      return wide;
    });
    this.wide = true;
    this.origin = 0;
  }
}
