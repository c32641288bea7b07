import type { Observable, SchedulerLike } from 'rxjs';
import { RxSliceError } from '../internal/errors';
import { quote } from '../internal/quote';
import type { SliceDef } from '../slices/reducer';
import type { Snapshot } from '../snapshots/snapshot';
import type { SnapshotHost } from '../session/snapshot-layer';
import type { Session } from '../session/session-types';
import type { CommittedEnvelope } from '../session/committed-envelope';

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
