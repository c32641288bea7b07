import { closeSync, fstatSync, openSync, readFileSync, readSync } from 'node:fs';
import { from, Subscription, type Observable, type SchedulerLike } from 'rxjs';
import type { Event } from '../events/event';
import type { EnvelopeMeta } from '../events/envelope';
import { RxSliceError } from '../internal/errors';
import { deepFreeze } from '../internal/freeze';
import type { SliceDef } from '../slices/reducer';
import { snapshotFromJSON } from '../snapshots/codec';
import type { Snapshot } from '../snapshots/snapshot';
import { createCoreSession } from '../session/create-core-session';
import { snapshotLayer, withSnapshotMethods, type SnapshotHost } from '../session/snapshot-layer';
import type { Session } from '../session/session-types';
import type { CommittedEnvelope } from '../session/committed-envelope';
import { SESSION_INTERNALS } from '../session/internals';
import { foldSnapshotLine, type SnapshotLine } from './snapshot-runs';
import { BODY_OFFSET, crcOf, lineCrc, NOT_A_RECORD, prefixSeq, RECORDING_FORMAT, RECORDING_FORMAT_VERSION } from './recording-format';
import { quote } from '../internal/quote';

/** One envelope as the flight recorder wrote it (deep-frozen). */
export type RecordedEnvelope = CommittedEnvelope;

/** Options of {@link readRecording}. */
export interface ReadRecordingOptions {
  /** The slice definitions of the recorded session (every slice its snapshots hold). */
  readonly slices: readonly SliceDef<string, any>[];
  /**
   * Makes the session that replays envelopes, on the given scheduler (its clock; nothing scheduled
   * on it runs). Needed when the recorded session had reducers that its slice definitions do not
   * carry, such as an installed statechart: `(scheduler) => { const s = createSession({ slices,
   * scheduler }); s.install(Phases); return s; }`. Register no effect handlers or epics there.
   * Default: `createSession({ slices, scheduler })` of the core.
   */
  readonly session?: (scheduler: SchedulerLike) => Session;
}

/** Where a torn last line was found and dropped. */
export interface TornTail {
  /** Byte offset of the dropped line. */
  readonly offset: number;
  /** Bytes dropped (the line without its newline, or with a bad checksum). */
  readonly bytes: number;
}

/**
 * A flight recording opened by {@link readRecording}: time travel over its envelopes.
 */
export interface Recording {
  readonly file: string;
  /** The `label` the recorder was given (see `FlightRecorderOptions.label`), if any. */
  readonly label: string | undefined;
  /** `seq` of the first snapshot (the state the recording starts from). */
  readonly firstSeq: number;
  /** `seq` of the last recorded envelope (or of the first snapshot when none follows). */
  readonly lastSeq: number;
  /** Number of recorded envelopes. */
  readonly size: number;
  /** The `seq` of every snapshot in the file, ascending. */
  readonly snapshotSeqs: readonly number[];
  /** The `seq` of every recorded envelope, ascending (from the index: nothing is parsed). */
  readonly envelopeSeqs: readonly number[];
  /** The torn last line that was dropped, if any. */
  readonly tornTail: TornTail | undefined;
  /**
   * The state after envelope `seq` (`firstSeq ≤ seq ≤ lastSeq`) as a snapshot of every slice:
   * the nearest snapshot at or before `seq`, then the envelopes after it replayed through a
   * fresh session of the recording's slices (reducers only: no effects run). Successive calls
   * moving forward continue from the previous state when no snapshot lies closer.
   * @throws {@link RecordingError} for a `seq` outside the recording, or one that cannot be rebuilt.
   */
  stateAt(seq: number): Snapshot;
  /**
   * Time travel: restores `session` to the state after envelope `seq`, as one audited
   * `rxslice.session.restored` event (`fromSeq: seq`) through `session.restore`: nothing is
   * replayed in `session`, so no effect, saga step or timer runs again (see the README, "Time
   * travel"). `options.slices` restores only those.
   * @throws {@link RecordingError} for a `seq` outside the recording; what `session.restore`
   * throws (nothing changes then).
   * @example
   * ```ts
   * readRecording('run.jsonl', { slices }).restoreTo(session, 42); // session is back at event 42
   * ```
   */
  restoreTo(session: SnapshotHost, seq: number, options?: { readonly slices?: readonly (SliceDef<string, any> | string)[] }): void;
  /**
   * Forks: a new session holding the state after envelope `seq`, whose own events continue from
   * `seq + 1` (its first is the restored event). `make` creates it (default: a core session of
   * the recording's slices); give it effects, sagas or storage as for any session: they start
   * from the fork, and nothing before it runs again.
   * @throws {@link RecordingError} for a `seq` outside the recording.
   * @example
   * ```ts
   * const what_if = readRecording('run.jsonl', { slices }).fork(42);
   * what_if.dispatch(PlanApproved({ planId: 'p1' })); // explore another path from event 42
   * ```
   */
  fork(seq: number, make?: () => Session): Session;
  /**
   * Follows a recording that is still being written: indexes the whole lines appended to the file
   * since it was opened or last refreshed, and returns how many envelopes they added (0 when none).
   * `lastSeq`, `size`, `envelopeSeqs`, `snapshotSeqs` and `tornTail` move with it; states already
   * asked for do not change. A last line without its newline (a write in progress) is left for the
   * next call.
   *
   * @remarks Synchronous; reads only the appended bytes (one `fstat` and one read).
   * @throws {@link RecordingError} `RECORDING_CORRUPT` when the file shrank (truncated or replaced:
   * open it again) or a line before the new tail is damaged; `RECORDING_IO` when it cannot be read.
   * Nothing changes then.
   * @example
   * ```ts
   * const rec = readRecording('live.jsonl', { slices });
   * // ... the recorder writes more
   * rec.refresh(); // 12: envelopes added; rec.lastSeq moved with them
   * ```
   */
  refresh(): number;
  /**
   * Releases the replay session that {@link Recording.stateAt} keeps between calls (so that
   * successive states continue from the previous one). Idempotent; the recording stays usable:
   * a later `stateAt` replays from the nearest snapshot again.
   * @example
   * ```ts
   * const rec = readRecording('run.jsonl', { slices });
   * rec.stateAt(42);
   * rec.close(); // the session that rebuilt seq 42 is disposed
   * ```
   */
  close(): void;
  /** The recorded envelopes with `fromSeq ≤ seq ≤ toSeq` (default: all), in order, parsed lazily. */
  envelopes(range?: { readonly fromSeq?: number; readonly toSeq?: number }): IterableIterator<RecordedEnvelope>;
  /** {@link Recording.envelopes} as a cold observable (synchronous on subscribe, or on `scheduler`). */
  envelopes$(range?: { readonly fromSeq?: number; readonly toSeq?: number }, scheduler?: SchedulerLike): Observable<RecordedEnvelope>;
}

/** Thrown when a recording cannot be read (missing, not a recording, damaged before its tail) or a state cannot be rebuilt. */
export class RecordingError extends RxSliceError {
  override readonly name = 'RecordingError';
  constructor(
    readonly file: string,
    code: 'RECORDING_NOT_FOUND' | 'RECORDING_CORRUPT' | 'RECORDING_IO' | 'RECORDING_SEQ_OUT_OF_RANGE' | 'RECORDING_GAP',
    message: string,
    options?: { cause?: unknown },
  ) {
    super(code, `Recording ${quote(file)}: ${message}`, options);
  }
}

const KIND_ENVELOPE = 0;
const KIND_SNAPSHOT = 1;

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

/** What a recording's first line says about it. See {@link readRecordingHeader}. */
export interface RecordingHeader {
  readonly formatVersion: number;
  /** The recorder's `snapshotEvery`. */
  readonly snapshotEvery: number;
  /** The recorder's `label`, if it had one. */
  readonly label: string | undefined;
}

/**
 * Reads only the header (first line) of a flight recording: its format version, `snapshotEvery`
 * and `label`. Tools use it to pick the slice definitions before {@link readRecording}.
 * Reads at most the first 64 KiB; O(1) in the recording's size.
 * @throws {@link RecordingError} `RECORDING_NOT_FOUND`, `RECORDING_IO`, or `RECORDING_CORRUPT`
 * (no header line, a bad checksum, another format, or a newer format version).
 * @example
 * ```ts
 * readRecordingHeader('run.jsonl'); // { formatVersion: 2, snapshotEvery: 1000, label: 'rxslice.transcript' }
 * ```
 */
export function readRecordingHeader(file: string): RecordingHeader {
  const buf = Buffer.alloc(65536);
  let n = 0;
  let fd: number | undefined;
  try {
    fd = openSync(file, 'r');
    n = readSync(fd, buf, 0, buf.length, 0);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code === 'ENOENT' ? 'RECORDING_NOT_FOUND' : 'RECORDING_IO';
    throw new RecordingError(file, code, code === 'RECORDING_NOT_FOUND' ? 'no such file.' : (e as Error).message, { cause: e });
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
  const nl = buf.subarray(0, n).indexOf(10);
  const crc = nl < 0 ? -1 : lineCrc(buf, 0);
  if (nl < 0 || crc < 0 || crc !== crcOf(buf, BODY_OFFSET, nl - 1)) {
    throw new RecordingError(file, 'RECORDING_CORRUPT', 'it does not start with a checksummed recording header; is it a flight recording?');
  }
  return parseHeader(file, buf.toString('utf8', BODY_OFFSET, nl - 1));
}

function parseHeader(file: string, body: string): RecordingHeader {
  let header: { k?: unknown; format?: unknown; formatVersion?: unknown; snapshotEvery?: unknown; label?: unknown };
  try {
    header = JSON.parse(body) as typeof header;
  } catch {
    throw new RecordingError(file, 'RECORDING_CORRUPT', 'its header is not JSON.');
  }
  if (header === null || typeof header !== 'object' || header.k !== 'h') {
    throw new RecordingError(file, 'RECORDING_CORRUPT', 'it does not start with a recording header; is it a flight recording?');
  }
  if (header.format !== RECORDING_FORMAT) throw new RecordingError(file, 'RECORDING_CORRUPT', `its header names format ${JSON.stringify(header.format)}, not ${RECORDING_FORMAT}.`);
  if (typeof header.formatVersion !== 'number' || header.formatVersion > RECORDING_FORMAT_VERSION) {
    throw new RecordingError(file, 'RECORDING_CORRUPT', `it has format version ${String(header.formatVersion)}, newer than this rxslice reads (${RECORDING_FORMAT_VERSION}); upgrade rxslice.`);
  }
  return {
    formatVersion: header.formatVersion,
    snapshotEvery: typeof header.snapshotEvery === 'number' ? header.snapshotEvery : 0,
    label: typeof header.label === 'string' ? header.label : undefined,
  };
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
