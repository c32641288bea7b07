import { closeSync, fstatSync, openSync, readFileSync, readSync } from 'node:fs';
import { from, Subscription, type Observable, type SchedulerLike } from 'rxjs';
import type { Event } from '../events/event';
import type { EnvelopeMeta } from '../events/envelope';
import { deepFreeze } from '../internal/freeze';
import type { SliceDef } from '../slices/reducer';
import { snapshotFromJSON } from '../snapshots/codec';
import type { Snapshot } from '../snapshots/snapshot';
import { createCoreSession } from '../session/create-core-session';
import { snapshotLayer, withSnapshotMethods, type SnapshotHost } from '../session/snapshot-layer';
import type { Session } from '../session/session-types';
import { SESSION_INTERNALS } from '../session/internals';
import { foldSnapshotLine, type SnapshotLine } from './snapshot-runs';
import { BODY_OFFSET, crcOf, lineCrc, NOT_A_RECORD, prefixSeq } from './recording-format';
import { RecordingError, type ReadRecordingOptions, type Recording, type RecordedEnvelope, type TornTail } from './recording-types';
import { parseHeader } from './recording-header';

/**
 * The clock of a replay session: `now()` is the time of the envelope being replayed, and nothing
 * scheduled on it ever runs (effect retries, timeouts and statechart timers happened live; what
 * they dispatched is in the recording as envelopes of its own).
 */
class ReplayClock {
  now_ = 0;
  readonly scheduler: SchedulerLike = { now: () => this.now_, schedule: () => new Subscription() };
}

/**
 * Opens a flight recording written by `flightRecorder`: checks every line's CRC32, drops a torn
 * last line (one without its newline, or whose checksum or JSON fails) and indexes the snapshots
 * and envelopes by `seq`, without parsing them. `stateAt(seq)` then costs O(distance from the
 * nearest snapshot at or before `seq`); `envelopes()` streams the envelopes for replay.
 *
 * @remarks Synchronous: reads the whole file once (O(file size)). Snapshots are read with
 * `snapshotFromJSON` (validated, older schema versions migrated), envelopes are replayed
 * through reducers only, under their recorded `seq` and `at`, so reducers and time windows see
 * what they saw live. Damage before the last line is never skipped: it is an error.
 * @param file - The recording.
 * @param options - `slices`: the recorded session's slice definitions.
 * @throws {@link RecordingError} `RECORDING_NOT_FOUND`, `RECORDING_IO`, or `RECORDING_CORRUPT`
 * (not a recording, a newer format, a bad line before the tail, no snapshot to start from).
 * @example
 * ```ts
 * const rec = readRecording('run.jsonl', { slices: [Plan, Messages] });
 * rec.stateAt(42).slices['plan']?.items;            // the plan after event 42
 * for (const env of rec.envelopes({ fromSeq: 40 })) console.log(env.seq, env.event.type);
 * ```
 */
export function readRecording(file: string, options: ReadRecordingOptions): Recording {
  let buf: Buffer;
  try {
    buf = readFileSync(file);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code === 'ENOENT' ? 'RECORDING_NOT_FOUND' : 'RECORDING_IO';
    throw new RecordingError(file, code, code === 'RECORDING_NOT_FOUND' ? 'no such file. Record one with flightRecorder(session, { file }).' : (e as Error).message, { cause: e });
  }
  return new RecordingReader(file, buf, options.slices, options.session ?? ((scheduler) => withSnapshotMethods(createCoreSession({ slices: options.slices, scheduler }))));
}


class RecordingReader implements Recording {
  readonly firstSeq: number;
  label: string | undefined = undefined;
  lastSeq: number;
  tornTail: TornTail | undefined;
  /** Envelopes: seq, body start, body end. */
  private readonly envSeqs: number[] = [];
  private readonly envStarts: number[] = [];
  private readonly envEnds: number[] = [];
  private readonly snapSeqs: number[] = [];
  private readonly snapStarts: number[] = [];
  private readonly snapEnds: number[] = [];
  /** Bytes of `buf` read from the file (`buf` may be larger: room for {@link refresh}). */
  private length: number;
  /** Where the next line to index starts: after the last whole line indexed. */
  private indexed = 0;
  private lineNo = 0;
  private prevSeq = -1;
  /** The replay session of the last `stateAt` call and where it stands. */
  private cursor: { session: Session; clock: ReplayClock; seq: number; envIndex: number } | undefined = undefined;

  constructor(
    readonly file: string,
    private buf: Buffer,
    private readonly slices: readonly SliceDef<string, any>[],
    private readonly makeSession: (scheduler: SchedulerLike) => Session,
  ) {
    this.length = buf.length;
    this.tornTail = this.index();
    if (this.snapSeqs.length === 0) throw new RecordingError(file, 'RECORDING_CORRUPT', 'it holds no snapshot to start from (empty or cut inside its first lines).');
    this.firstSeq = this.snapSeqs[0] as number;
    this.lastSeq = this.lastSeqNow();
  }

  private lastSeqNow(): number {
    return Math.max(this.firstSeq, this.envSeqs.at(-1) ?? 0, this.snapSeqs.at(-1) ?? 0);
  }

  /**
   * Indexes the whole lines from {@link indexed} to {@link length}; returns the torn last line
   * (not indexed: {@link indexed} stays at its start), if any.
   * @throws {@link RecordingError} for damage before the last line.
   */
  private index(): TornTail | undefined {
    const buf = this.buf;
    const file = this.file;
    let pos = this.indexed;
    while (pos < this.length) {
      const nl = buf.indexOf(10, pos);
      const end = nl < 0 || nl >= this.length ? this.length : nl;
      const problem = this.checkLine(pos, end, nl < 0 || nl >= this.length);
      if (problem !== undefined) {
        // Only the last line may be torn.
        if (end === this.length || nl === this.length - 1) return { offset: pos, bytes: end - pos };
        throw new RecordingError(file, 'RECORDING_CORRUPT', `line ${this.lineNo + 1} (byte ${pos}) ${problem}, and lines follow it: the file is damaged before its tail. Nothing was read.`);
      }
      const bodyStart = pos + BODY_OFFSET;
      const bodyEnd = end - 1;
      const kind = String.fromCharCode(buf[bodyStart + 6] as number);
      const prefixed = prefixSeq(buf, bodyStart, bodyEnd);
      const line = this.lineNo;
      if (line === 0) {
        if (kind !== 'h') throw new RecordingError(file, 'RECORDING_CORRUPT', 'it does not start with a recording header; is it a flight recording?');
        this.label = parseHeader(file, buf.toString('utf8', bodyStart, bodyEnd)).label;
      } else {
        if (kind === 'h' || prefixed < 0) throw new RecordingError(file, 'RECORDING_CORRUPT', `line ${line + 1} (byte ${pos}) is not a snapshot or an envelope.`);
        const seq = prefixed;
        if (kind === 'e') {
          if (seq <= this.prevSeq) throw new RecordingError(file, 'RECORDING_CORRUPT', `line ${line + 1} (byte ${pos}) has seq ${seq} after seq ${this.prevSeq}.`);
          this.prevSeq = seq;
          this.envSeqs.push(seq);
          this.envStarts.push(bodyStart);
          this.envEnds.push(bodyEnd);
        } else {
          if (seq < this.prevSeq) throw new RecordingError(file, 'RECORDING_CORRUPT', `line ${line + 1} (byte ${pos}) is a snapshot at seq ${seq} after seq ${this.prevSeq}.`);
          this.prevSeq = seq;
          this.snapSeqs.push(seq);
          this.snapStarts.push(bodyStart);
          this.snapEnds.push(bodyEnd);
        }
      }
      this.lineNo++;
      pos = end + 1;
      this.indexed = pos;
    }
    return undefined;
  }

  close(): void {
    const cursor = this.cursor;
    this.cursor = undefined;
    cursor?.session.dispose();
  }

  refresh(): number {
    let fd: number | undefined;
    let size: number;
    let chunk: Buffer;
    try {
      fd = openSync(this.file, 'r');
      size = fstatSync(fd).size;
      if (size < this.length) {
        throw new RecordingError(this.file, 'RECORDING_CORRUPT', `it shrank from ${this.length} to ${size} bytes (truncated or replaced): open it again.`);
      }
      chunk = Buffer.allocUnsafe(size - this.length);
      let off = 0;
      while (off < chunk.length) {
        const n = readSync(fd, chunk, off, chunk.length - off, this.length + off);
        if (n === 0) break;
        off += n;
      }
      chunk = chunk.subarray(0, off);
    } catch (e) {
      if (e instanceof RecordingError) throw e;
      throw new RecordingError(this.file, 'RECORDING_IO', (e as Error).message, { cause: e });
    } finally {
      if (fd !== undefined) closeSync(fd);
    }
    if (chunk.length === 0) return 0;
    // Grow by doubling, so following a recording costs O(appended bytes) amortized.
    if (this.length + chunk.length > this.buf.length) {
      const grown = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.length + chunk.length));
      this.buf.copy(grown, 0, 0, this.length);
      this.buf = grown;
    }
    chunk.copy(this.buf, this.length);
    const before = { length: this.length, indexed: this.indexed, lineNo: this.lineNo, prevSeq: this.prevSeq, envs: this.envSeqs.length, snaps: this.snapSeqs.length };
    this.length += chunk.length;
    try {
      this.tornTail = this.index();
    } catch (e) {
      // Nothing changes: forget the lines indexed by this call and the bytes read.
      this.length = before.length;
      this.indexed = before.indexed;
      this.lineNo = before.lineNo;
      this.prevSeq = before.prevSeq;
      for (const list of [this.envSeqs, this.envStarts, this.envEnds]) list.length = before.envs;
      for (const list of [this.snapSeqs, this.snapStarts, this.snapEnds]) list.length = before.snaps;
      throw e;
    }
    this.lastSeq = this.lastSeqNow();
    return this.envSeqs.length - before.envs;
  }

  /** Why line `[start, end)` is not a whole record, or `undefined` when it is. */
  private checkLine(start: number, end: number, unterminated: boolean): string | undefined {
    if (unterminated) return 'has no newline';
    if (end - start < BODY_OFFSET + 2 || this.buf[end - 1] !== 125 /* } */) return 'is not a record';
    const crc = lineCrc(this.buf, start);
    if (crc < 0) return 'has no checksum';
    if (crcOf(this.buf, start + BODY_OFFSET, end - 1) !== crc) return 'fails its checksum';
    if (prefixSeq(this.buf, start + BODY_OFFSET, end - 1) === NOT_A_RECORD) return 'is not a record';
    return undefined;
  }

  get size(): number {
    return this.envSeqs.length;
  }

  get envelopeSeqs(): readonly number[] {
    return this.envSeqs;
  }

  get snapshotSeqs(): readonly number[] {
    return this.snapSeqs;
  }

  private envelopeAt(i: number): RecordedEnvelope {
    const body = JSON.parse(this.buf.toString('utf8', this.envStarts[i] as number, this.envEnds[i] as number)) as {
      seq: number;
      at: number;
      event: Event;
      meta: EnvelopeMeta;
      changed: string[];
      effects: Event[];
    };
    return deepFreeze({ seq: body.seq, at: body.at, event: body.event, meta: body.meta ?? {}, changed: body.changed, effects: body.effects });
  }

  *envelopes(range: { readonly fromSeq?: number; readonly toSeq?: number } = {}): IterableIterator<RecordedEnvelope> {
    const to = range.toSeq ?? Infinity;
    for (let i = firstAbove(this.envSeqs, (range.fromSeq ?? -Infinity) - 1); i < this.envSeqs.length && (this.envSeqs[i] as number) <= to; i++) {
      yield this.envelopeAt(i);
    }
  }

  envelopes$(range: { readonly fromSeq?: number; readonly toSeq?: number } = {}, scheduler?: SchedulerLike): Observable<RecordedEnvelope> {
    return scheduler === undefined ? from({ [Symbol.iterator]: () => this.envelopes(range) }) : from({ [Symbol.iterator]: () => this.envelopes(range) }, scheduler);
  }

  restoreTo(session: SnapshotHost, seq: number, options?: { readonly slices?: readonly (SliceDef<string, any> | string)[] }): void {
    snapshotLayer(session).restore(this.stateAt(seq), options);
  }

  fork(seq: number, make?: () => Session): Session {
    const state = this.stateAt(seq);
    const session = make === undefined ? withSnapshotMethods(createCoreSession({ slices: this.slices })) : make();
    try {
      if (session.lastSeq < seq) session[SESSION_INTERNALS].skipTo(seq + 1);
      snapshotLayer(session).restore(state);
    } catch (e) {
      if (make === undefined) session.dispose();
      throw e;
    }
    return session;
  }

  stateAt(seq: number): Snapshot {
    if (!Number.isInteger(seq) || seq < this.firstSeq || seq > this.lastSeq) {
      throw new RecordingError(this.file, 'RECORDING_SEQ_OUT_OF_RANGE', `seq ${seq} is outside the recording (${this.firstSeq} to ${this.lastSeq}).`);
    }
    // The nearest snapshot at or before `seq` ...
    const s = firstAbove(this.snapSeqs, seq) - 1;
    const snapSeq = this.snapSeqs[s] as number;
    // ... unless the replay session already stands between it and `seq`.
    let cursor = this.cursor;
    if (cursor === undefined || cursor.seq > seq || cursor.seq < snapSeq) {
      cursor?.session.dispose();
      cursor = this.cursor = undefined;
      const snapshot = this.snapshotAt(s);
      const clock = new ReplayClock();
      clock.now_ = snapshot.at;
      const session = this.makeSession(clock.scheduler);
      if (snapSeq > 0) {
        // The restore takes the snapshot's own seq, so replayed envelopes keep theirs.
        session[SESSION_INTERNALS].skipTo(snapSeq);
        snapshotLayer(session).restore(snapshot);
      } else if (!sameItems(snapshotLayer(session).snapshot({ includeLogs: true }), snapshot)) {
        // State before any event that differs from the slices' initial items: restoring takes
        // seq 1, and replayed envelopes run one seq later than recorded (see `replayOne`).
        snapshotLayer(session).restore(snapshot);
      }
      cursor = this.cursor = { session, clock, seq: snapSeq, envIndex: firstAbove(this.envSeqs, snapSeq) };
    }
    const internals = cursor.session[SESSION_INTERNALS];
    while (cursor.envIndex < this.envSeqs.length && (this.envSeqs[cursor.envIndex] as number) <= seq) {
      const env = this.envelopeAt(cursor.envIndex);
      if (env.event.type === 'rxslice.session.restored') {
        this.cursor = undefined;
        cursor.session.dispose();
        throw new RecordingError(
          this.file,
          'RECORDING_GAP',
          `the state at seq ${seq} cannot be rebuilt: the restore at seq ${env.seq} has no snapshot right after it (it happened inside session.batch). States from the next snapshot on can be.`,
        );
      }
      cursor.clock.now_ = env.at;
      if (env.seq > cursor.session.lastSeq) internals.skipTo(env.seq);
      internals.dispatchSystem(env.event, env.meta);
      cursor.seq = env.seq;
      cursor.envIndex++;
    }
    cursor.seq = seq;
    return snapshotLayer(cursor.session).snapshot({ includeLogs: true });
  }

  private snapshotAt(i: number): Snapshot {
    return snapshotFromJSON(this.snapshotJSONAt(i), this.slices);
  }

  /** The last snapshot line rebuilt whole (its index and JSON), where the next fold may start. */
  private folded: { index: number; json: SnapshotLine['snapshot'] } | undefined = undefined;

  /**
   * The JSON of snapshot line `i` with every slice whole: a line with a `base` (format version 2)
   * is folded onto the line before it, back to the nearest whole line (or the last one folded).
   * @throws {@link RecordingError} `RECORDING_CORRUPT` when a line's `base` or a slice's run does not match the line before it.
   */
  private snapshotJSONAt(i: number): SnapshotLine['snapshot'] {
    if (this.folded?.index === i) return this.folded.json;
    const chain: SnapshotLine[] = [];
    let k = i;
    let json: SnapshotLine['snapshot'] | undefined;
    for (;;) {
      if (this.folded?.index === k && chain.length > 0) {
        json = this.folded.json;
        break;
      }
      const line = JSON.parse(this.buf.toString('utf8', this.snapStarts[k] as number, this.snapEnds[k] as number)) as SnapshotLine;
      chain.push(line);
      if (line.base === undefined) break;
      if (k === 0 || line.base !== this.snapSeqs[k - 1]) {
        throw new RecordingError(this.file, 'RECORDING_CORRUPT', `the snapshot at seq ${line.seq} is relative to seq ${String(line.base)}, which is not the snapshot before it.`);
      }
      k--;
    }
    for (let c = chain.length - 1; c >= 0; c--) {
      const line = chain[c] as SnapshotLine;
      json = foldSnapshotLine(json, line, (what) => new RecordingError(this.file, 'RECORDING_CORRUPT', `the snapshot at seq ${line.seq} ${what}.`));
    }
    this.folded = { index: i, json: json as SnapshotLine['snapshot'] };
    return json as SnapshotLine['snapshot'];
  }

}


/** Whether two snapshots hold the same slices with the same items (compared as JSON). */
function sameItems(a: Snapshot, b: Snapshot): boolean {
  const names = Object.keys(b.slices);
  if (names.length !== Object.keys(a.slices).length) return false;
  return names.every((name) => {
    const x = a.slices[name];
    return x !== undefined && JSON.stringify(x.items) === JSON.stringify((b.slices[name] as { items: unknown }).items);
  });
}

/** Index of the first element of ascending `list` greater than `value` (binary search). */
function firstAbove(list: readonly number[], value: number): number {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((list[mid] as number) <= value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
