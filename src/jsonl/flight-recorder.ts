import { captureSnapshot } from '../session/snapshot-layer';
import { closeSync, fsyncSync, openSync, writeSync } from 'node:fs';
import type { Subscription } from 'rxjs';
import { RxSliceError } from '../internal/errors';
import type { CoreStore } from '../session/session-types';
import type { CommittedEnvelope } from '../session/committed-envelope';
import type { SnapshotJSON } from '../snapshots/snapshot';
import { SESSION_INTERNALS } from '../session/internals';
import { SessionRestored } from '../session/system-events';
import { bodyLength, encodeLinesInto, FULL_SNAPSHOT_EVERY, linesRoom, type LineBody, RECORDING_FORMAT, RECORDING_FORMAT_VERSION } from './recording-format';
import { fsyncDirectory } from './snapshot-file';
import { keptRuns } from './snapshot-runs';
import { quote } from '../internal/quote';

/** When the recorder makes its writes durable, after SQLite's `synchronous` levels. */
export type RecorderFsync = 'always' | 'batch' | 'never';

/** Options of {@link flightRecorder}. */
export interface FlightRecorderOptions {
  /** The JSONL file to write. Created, or truncated when it exists. */
  readonly file: string;
  /** A snapshot every this many envelopes (integer ≥ 1). Default 1000. */
  readonly snapshotEvery?: number;
  /**
   * - `'never'` (default, SQLite OFF): lines are buffered and written in chunks; the OS decides
   *   when they reach the disk. A process crash loses the buffer (at most `bufferBytes`, or
   *   `flushIntervalMs` of events); a power loss may lose what the OS had not written.
   * - `'batch'` (NORMAL): as `'never'`, and every chunk written is fsynced: a power loss loses
   *   at most the unwritten buffer.
   * - `'always'` (FULL): every envelope is written and fsynced before the dispatch returns.
   */
  readonly fsync?: RecorderFsync;
  /** Buffered lines are written once they hold this many characters. Default 65536. */
  readonly bufferBytes?: number;
  /** Buffered lines are written at most this long (ms, wall clock) after the first of them. Default 200. */
  readonly flushIntervalMs?: number;
  /**
   * What the recording holds, written in its header (1 to 200 characters) and read back by
   * `readRecordingHeader`: tools that open recordings choose slice definitions by it (the
   * `rxslice` command line writes `'rxslice.transcript'` for its transcript replays). Default: none.
   */
  readonly label?: string;
}

/** A running flight recorder. See {@link flightRecorder}. */
export interface FlightRecorder {
  readonly file: string;
  /** Envelopes recorded so far. */
  readonly recorded: number;
  /** Whether it stopped (closed, the session disposed, or a write failed). */
  readonly closed: boolean;
  /** Writes the buffered lines now (and fsyncs them unless `fsync: 'never'`). Synchronous. */
  flush(): void;
  /** Flushes, fsyncs the file and its directory, and stops recording. Idempotent. */
  close(): void;
}

/** Thrown by {@link flightRecorder} for bad options, and reported on `session.errors$` when a write fails (the recorder stops then; the session goes on). */
export class FlightRecorderError extends RxSliceError {
  override readonly name = 'FlightRecorderError';
  constructor(
    readonly file: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super('FLIGHT_RECORDER', `Flight recorder ${quote(file)}: ${message}`, options);
  }
}

/**
 * Records a session to a JSONL file: every committed envelope (`seq`, `at`, `event`, `meta`, the
 * slices it changed, the effects its reducers requested) as one line, and a snapshot of every
 * slice (logs included) first and then every `snapshotEvery` envelopes, each line with a CRC32.
 * The first snapshot, and every tenth after it, is whole; the others write each slice relative to
 * the snapshot before them (a log as the run of items it kept and the items added since). {@link readRecording} reads it back: the state at any `seq`, and the envelopes for replay.
 *
 * @remarks Subscribes to `session.committed$`, so it sees envelopes in commit order, after their
 * subscribers' slices were updated (inside `session.batch` the snapshot waits for the end of the
 * batch). A `rxslice.session.restored` envelope is followed by a snapshot, since a restore cannot
 * be replayed from its payload. `session.dispose()` closes the recorder. A write that fails
 * stops the recorder and is reported on `session.errors$` as a {@link FlightRecorderError}; the
 * session itself goes on. Each snapshot captures every slice (O(items), each item stringified
 * once while it lives) and writes what changed since the previous one (every tenth: everything). Source: the seed's "Sessions" ("store a JSONL flight recorder for debugging").
 * @param session - The session to record (from `createSession`).
 * @param options - `file`, `snapshotEvery`, `fsync`, buffering (see {@link FlightRecorderOptions}).
 * @throws {@link FlightRecorderError} on bad options, or when the file cannot be created or its first lines written.
 * @example
 * ```ts
 * const recorder = flightRecorder(session, { file: 'run.jsonl', snapshotEvery: 1000 });
 * session.dispatch(StepAdded({ step: 'plan' }));
 * recorder.close(); // or session.dispose()
 * readRecording('run.jsonl', { slices: [Plan] }).stateAt(1).slices['plan']?.items; // the plan after seq 1
 * ```
 */
export function flightRecorder(session: CoreStore, options: FlightRecorderOptions): FlightRecorder {
  const file = options.file;
  const snapshotEvery = options.snapshotEvery ?? 1000;
  const fsync = options.fsync ?? 'never';
  const bufferBytes = options.bufferBytes ?? 65536;
  const flushIntervalMs = options.flushIntervalMs ?? 200;
  if (typeof file !== 'string' || file.length === 0) throw new FlightRecorderError(String(file), 'file must be a non-empty path.');
  if (!Number.isInteger(snapshotEvery) || snapshotEvery < 1) {
    throw new FlightRecorderError(file, `snapshotEvery must be an integer ≥ 1, got ${String(snapshotEvery)}.`);
  }
  if (fsync !== 'always' && fsync !== 'batch' && fsync !== 'never') {
    throw new FlightRecorderError(file, `fsync must be 'always', 'batch' or 'never', got ${JSON.stringify(fsync)}.`);
  }
  if (!(bufferBytes >= 0) || !(flushIntervalMs >= 0)) throw new FlightRecorderError(file, 'bufferBytes and flushIntervalMs must be ≥ 0.');
  if (session[SESSION_INTERNALS].disposed) throw new FlightRecorderError(file, 'the session is disposed.');
  const label = options.label;
  if (label !== undefined && (typeof label !== 'string' || label.length === 0 || label.length > 200)) {
    throw new FlightRecorderError(file, `label must be a string of 1 to 200 characters, got ${JSON.stringify(label)}.`);
  }
  let fd: number;
  try {
    fd = openSync(file, 'w');
  } catch (e) {
    throw new FlightRecorderError(file, `cannot create the file (${(e as Error).message}).`, { cause: e });
  }
  const recorder = new Recorder(session, file, fd, snapshotEvery, fsync, bufferBytes, flushIntervalMs, label);
  recorder.start();
  return recorder;
}

/** The largest encoding buffer a recorder keeps for its next chunks (bytes). */
const REUSED_OUT_MAX = 1024 * 1024;

class Recorder implements FlightRecorder {
  recorded = 0;
  closed = false;
  private buffer: LineBody[] = [];
  /** The last envelope's `meta`, `changed` and `effects` and their JSON texts. */
  private readonly texts = {
    meta: undefined as unknown,
    metaText: undefined as string | undefined,
    changed: undefined as unknown,
    changedText: undefined as string | undefined,
    effects: undefined as unknown,
    effectsText: undefined as string | undefined,
  };
  private buffered = 0;
  /**
   * The buffer chunks are encoded into, reused: a buffer per chunk is memory outside the
   * JavaScript heap, and allocating it for every chunk makes the collector run more often.
   */
  private out = Buffer.allocUnsafeSlow(0);
  private sinceSnapshot = 0;
  /** A snapshot is owed (a restore, or `snapshotEvery` reached inside a batch). */
  private snapshotDue = false;
  private timer: ReturnType<typeof setTimeout> | undefined = undefined;
  private subscription: Subscription | undefined = undefined;

  constructor(
    private readonly session: CoreStore,
    readonly file: string,
    private fd: number,
    private readonly snapshotEvery: number,
    private readonly fsync: RecorderFsync,
    private readonly bufferBytes: number,
    private readonly flushIntervalMs: number,
    private readonly label: string | undefined,
  ) {}

  start(): void {
    this.push(
      JSON.stringify({
        k: 'h',
        format: RECORDING_FORMAT,
        formatVersion: RECORDING_FORMAT_VERSION,
        snapshotEvery: this.snapshotEvery,
        ...(this.label === undefined ? {} : { label: this.label }),
      }),
    );
    this.pushSnapshot();
    // The base is written now: a recorder that cannot write it fails at once.
    try {
      this.writeBuffer();
    } catch (e) {
      this.stop(false);
      throw new FlightRecorderError(this.file, `cannot write its first lines (${(e as Error).message}).`, { cause: e });
    }
    this.subscription = this.session.committed$.subscribe({
      next: (c) => this.onCommitted(c),
      complete: () => this.close(),
    });
  }

  private onCommitted(c: CommittedEnvelope): void {
    if (this.closed) return;
    this.push(this.envelopeText(c));
    this.recorded++;
    if (++this.sinceSnapshot >= this.snapshotEvery || SessionRestored.match(c.event)) this.snapshotDue = true;
    // Inside a batch the session is already past `c`: the snapshot waits for the batch's last envelope.
    if (this.snapshotDue && c.seq === this.session.lastSeq) this.pushSnapshot();
    if (this.fsync === 'always') this.flush();
  }

  /**
   * `JSON.stringify({ k: 'e', seq, at, event, meta, changed, effects })` of `c` (`k` and `seq`
   * first, as the reader's index expects). `meta`, `changed` and `effects` are mostly the objects
   * the envelope before had (immutable): their texts are kept from it. (Events are JSON data; one
   * with a `toJSON` of its own would be asked with the key `""`, not `"event"`.)
   */
  private envelopeText(c: CommittedEnvelope): string {
    const texts = this.texts;
    if (c.meta !== texts.meta) texts.metaText = JSON.stringify((texts.meta = c.meta));
    if (c.changed !== texts.changed) texts.changedText = JSON.stringify((texts.changed = c.changed));
    if (c.effects !== texts.effects) texts.effectsText = JSON.stringify((texts.effects = c.effects));
    const event = JSON.stringify(c.event) as string | undefined;
    // (A field JSON leaves out: the whole envelope's text, as before.)
    if (event === undefined || texts.metaText === undefined || texts.changedText === undefined || texts.effectsText === undefined || !Number.isFinite(c.at)) {
      return JSON.stringify({ k: 'e', seq: c.seq, at: c.at, event: c.event, meta: c.meta, changed: c.changed, effects: c.effects });
    }
    return `{"k":"e","seq":${c.seq},"at":${c.at},"event":${event},"meta":${texts.metaText},"changed":${texts.changedText},"effects":${texts.effectsText}}`;
  }

  private pushSnapshot(): void {
    const snapshot = captureSnapshot(this.session, { includeLogs: true });
    // Every FULL_SNAPSHOT_EVERY-th snapshot (the first included) is whole; the others write each
    // slice relative to the previous snapshot, which bounds the chain a reader folds.
    const full = this.lastSnapshotSeq < 0 || this.sinceFull >= FULL_SNAPSHOT_EVERY - 1;
    this.push(this.snapshotBody(`{"k":"s","seq":${snapshot.seq}${full ? '' : `,"base":${this.lastSnapshotSeq}`},"snapshot":`, snapshot.toJSON(), full));
    this.sinceFull = full ? 0 : this.sinceFull + 1;
    this.lastSnapshotSeq = snapshot.seq;
    this.sinceSnapshot = 0;
    this.snapshotDue = false;
  }

  /** `seq` of the last snapshot written (-1 before the first). */
  private lastSnapshotSeq = -1;
  /** Snapshots written since the last whole one. */
  private sinceFull = 0;
  /** Each slice's items as the last snapshot wrote them (the snapshot's copies) and their JSON texts, index for index. */
  private readonly lastItems = new Map<string, { readonly items: readonly unknown[]; readonly texts: readonly string[] }>();

  /**
   * The body of a snapshot line: `start`, then `JSON.stringify` of the snapshot's JSON form, then
   * `}`, in parts: each slice's item texts stay a list (see {@link LineBody}), written one by one
   * into the chunk, never joined. An item's text is taken from the previous snapshot when it
   * holds the same item (items are immutable: a log's items are stringified once while they
   * live). Unless `full`, a slice that holds runs of the previous snapshot's items (the same
   * objects, in order: a log that grew, whose window moved or evicted from its middle, or a
   * slice that did not change) is written as those runs (`"runs"`, see {@link keptRuns}) and the
   * items between them.
   */
  private snapshotBody(start: string, json: SnapshotJSON, full: boolean): LineBody {
    const { slices, ...head } = json;
    const body: (string | readonly string[])[] = [];
    let text = `${start}${JSON.stringify(head).slice(0, -1)},"slices":{`;
    let first = true;
    for (const name of Object.keys(slices)) {
      const { items, ...rest } = slices[name] as SnapshotJSON['slices'][string];
      const last = this.lastItems.get(name);
      const runs = last === undefined ? undefined : keptRuns(last.items, items);
      const texts: string[] = [];
      let list: readonly string[] = texts;
      if (runs === undefined || last === undefined) {
        for (let i = 0; i < items.length; i++) texts.push(itemText(items[i]));
      } else {
        // The runs place every item: kept ones take the previous text, new ones are stringified.
        const added: string[] = [];
        let i = 0;
        for (let r = 0; r < runs.length; r += 3) {
          const from = runs[r] as number;
          const keep = runs[r + 1] as number;
          const add = runs[r + 2] as number;
          for (let j = from; j < from + keep; j++) texts.push(last.texts[j] as string);
          i += keep;
          for (let k = 0; k < add; k++) {
            const itemJson = itemText(items[i++]);
            texts.push(itemJson);
            added.push(itemJson);
          }
        }
        if (!full) list = added;
      }
      this.lastItems.set(name, { items, texts });
      const restText = JSON.stringify(rest);
      const relative = runs === undefined || full ? '' : `"runs":[${runs.join(',')}],`;
      text += `${first ? '' : ','}${JSON.stringify(name)}:${restText === '{}' ? '{' : `${restText.slice(0, -1)},`}${relative}"items":[`;
      first = false;
      if (list.length > 0) {
        body.push(text, list);
        text = '';
      }
      text += ']}';
    }
    body.push(`${text}}}}`);
    return body;
  }

  private push(body: LineBody): void {
    this.buffer.push(body);
    // Characters, not bytes: the threshold is a size hint (each line adds 27 characters).
    this.buffered += (typeof body === 'string' ? body.length : bodyLength(body)) + 27;
    if (this.buffered >= this.bufferBytes) this.flush();
    else if (this.timer === undefined && this.fsync !== 'always') {
      this.timer = setTimeout(() => {
        this.timer = undefined;
        this.flush();
      }, this.flushIntervalMs);
      (this.timer as { unref?: () => void }).unref?.();
    }
  }

  flush(): void {
    if (this.timer !== undefined) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
    if (this.fd < 0 || this.buffer.length === 0) return;
    try {
      this.writeBuffer();
    } catch (e) {
      this.fail(e);
    }
  }

  /** Writes (and fsyncs unless `'never'`) the buffered lines in one call and empties the buffer. @throws the file system's error */
  private writeBuffer(): void {
    const room = linesRoom(this.buffer);
    let bytes = this.out;
    if (room > bytes.length) {
      bytes = Buffer.allocUnsafeSlow(room);
      // A chunk holding a large snapshot has a buffer of its own.
      if (room <= REUSED_OUT_MAX) this.out = bytes;
    }
    const length = encodeLinesInto(this.buffer, bytes);
    this.buffer = [];
    this.buffered = 0;
    let off = 0;
    while (off < length) off += writeSync(this.fd, bytes, off, length - off);
    if (this.fsync !== 'never') fsyncSync(this.fd);
  }

  private fail(cause: unknown): void {
    const error = new FlightRecorderError(this.file, `writing failed (${(cause as Error)?.message ?? String(cause)}); recording stopped.`, { cause });
    this.stop(false);
    const internals = this.session[SESSION_INTERNALS];
    if (!internals.disposed) internals.reportError(error);
  }

  close(): void {
    if (this.closed) return;
    this.flush();
    this.stop(true);
  }

  private stop(sync: boolean): void {
    this.closed = true;
    this.subscription?.unsubscribe();
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    this.buffer = [];
    const fd = this.fd;
    this.fd = -1;
    if (fd < 0) return;
    try {
      if (sync) fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    if (sync) fsyncDirectory(this.file);
  }
}

/** An item's JSON text as it reads in a list (`undefined`: `null`). */
const itemText = (item: unknown): string => JSON.stringify(item) ?? 'null';
