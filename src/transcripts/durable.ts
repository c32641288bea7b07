/**
 * The demo's durable options: `--store <dir>` keeps each transcript's session in a snapshot file
 * (`saveSnapshot` / `loadSnapshot`), so that a second run opens the stored state and replays only
 * what it does not hold yet; `--record <file>` writes a flight recording of the replay and reads
 * it back (`flightRecorder` / `readRecording`).
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { SchedulerLike } from 'rxjs';
import { createSession, type SliceDef } from '../index';
import { flightRecorder, loadSnapshot, readRecording, saveSnapshotSync, SnapshotFileNotFoundError, type FlightRecorder } from '../jsonl/index';
import { parseTranscript } from './parse';
import { AgentPhases } from './phases';
import type { TranscriptSession } from './replay';
import { Messages, transcriptSlices } from './slices';

/** The file holding the stored session of transcript `label` in `dir`. */
export const storeFileOf = (dir: string, label: string): string => path.join(dir, `${path.basename(label).replace(/[^A-Za-z0-9._-]/g, '_')}.session.json`);

/** What a stored session says about itself (kept in its snapshot's tag, so file and count change together). */
interface StoredTag {
  readonly source: string;
  /** Parsed events of the transcript the stored state holds. */
  readonly eventsRead: number;
}

/** Every slice of a transcript session, the installed statechart's included. */
const slicesOf = (session: TranscriptSession): SliceDef<string, any>[] => [...transcriptSlices, session.machine(AgentPhases).slice];

/** What {@link openStored} found. */
export interface OpenedStore {
  readonly file: string;
  /** Events of the transcript already in the session (not to be dispatched again). */
  readonly skipEvents: number;
  /** A sentence for the report. */
  readonly note: string;
}

/**
 * Restores the stored session of `label` from `dir` into `session` (a fresh transcript session),
 * if there is one. Throws the store's typed errors for a damaged file or one written by newer code.
 */
export function openStored(session: TranscriptSession, dir: string, label: string): OpenedStore {
  mkdirSync(dir, { recursive: true });
  const file = storeFileOf(dir, label);
  let snapshot;
  try {
    snapshot = loadSnapshot(file, slicesOf(session));
  } catch (e) {
    if (e instanceof SnapshotFileNotFoundError) return { file, skipEvents: 0, note: `store: new session, will be saved to ${file}` };
    throw e;
  }
  const tag = JSON.parse(snapshot.tag ?? '{}') as Partial<StoredTag>;
  const eventsRead = typeof tag.eventsRead === 'number' ? tag.eventsRead : 0;
  session.restore(snapshot);
  return {
    file,
    skipEvents: eventsRead,
    note: `store: opened ${file}: ${eventsRead.toLocaleString('en-US')} events of this transcript already stored (${session.slice(Messages).size} messages kept); replaying only what is new`,
  };
}

/** Saves `session` as the stored session of the transcript (atomically: temp + fsync + rename + directory fsync). */
export function saveStored(session: TranscriptSession, file: string, label: string, lines: readonly string[]): string {
  const tag: StoredTag = { source: label, eventsRead: parseTranscript(lines).events.length };
  saveSnapshotSync(file, session.snapshot({ includeLogs: true, tag: JSON.stringify(tag) }));
  return `store: saved the session (${tag.eventsRead.toLocaleString('en-US')} events of this transcript) to ${file}`;
}

/** The recording file of transcript `label`: `file` itself, or `file` with the label inserted when several transcripts are recorded. */
export function recordingFileOf(file: string, label: string, several: boolean): string {
  if (!several) return file;
  const ext = path.extname(file);
  return `${file.slice(0, file.length - ext.length)}.${path.basename(label, '.jsonl').replace(/[^A-Za-z0-9._-]/g, '_')}${ext || '.jsonl'}`;
}

/** The `label` in the header of the recordings {@link startRecording} writes: `rxslice inspect` and `rxslice stats` read them with {@link transcriptDefinitions}. */
export const TRANSCRIPT_LABEL = 'rxslice.transcript';

/** Starts recording `session` to `file` (label {@link TRANSCRIPT_LABEL}). */
export function startRecording(session: TranscriptSession, file: string): FlightRecorder {
  mkdirSync(path.dirname(file), { recursive: true });
  return flightRecorder(session, { file, snapshotEvery: 1000, label: TRANSCRIPT_LABEL });
}

/**
 * What reading a transcript recording takes: every slice (the statechart's included), a replay
 * session with the statechart's reducers and no effect handler, and the statechart itself.
 */
export function transcriptDefinitions(): {
  /** Every slice of a transcript session, the installed statechart's included. */
  slices: SliceDef<string, any>[];
  /**
   * Makes a fresh transcript session on `scheduler` (the recording's clock when replaying), with
   * validation off and the statechart installed; the caller disposes it.
   */
  session: (scheduler: SchedulerLike) => TranscriptSession;
  /** The statecharts a transcript session installs. */
  machines: (typeof AgentPhases)[];
} {
  const probe = createSession({ slices: transcriptSlices, validation: 'off' });
  const machineSlice = probe.install(AgentPhases).slice;
  probe.dispose();
  return {
    slices: [...transcriptSlices, machineSlice],
    session: (scheduler: SchedulerLike) => {
      const replay = createSession({ slices: transcriptSlices, scheduler, validation: 'off' });
      replay.install(AgentPhases);
      return replay as TranscriptSession;
    },
    machines: [AgentPhases],
  };
}

/**
 * Reads the recording back and travels in time: the number of envelopes and snapshots, the
 * messages held halfway, and whether the state at the last seq equals the live session's.
 */
export function describeRecording(file: string, session: TranscriptSession): string {
  // Reducers only: the statechart's reducers, no effect handlers.
  const { slices, session: replaySession } = transcriptDefinitions();
  const recording = readRecording(file, { slices, session: replaySession });
  const live = JSON.stringify(session.snapshot({ includeLogs: true }).toJSON().slices);
  const last = JSON.stringify(recording.stateAt(recording.lastSeq).toJSON().slices);
  const mid = Math.floor((recording.firstSeq + recording.lastSeq) / 2);
  const midMessages = recording.stateAt(mid).slices[Messages.name]?.items.length ?? 0;
  return [
    `record: ${recording.size.toLocaleString('en-US')} envelopes (seq ${recording.firstSeq}–${recording.lastSeq}), ${recording.snapshotSeqs.length} snapshots in ${file}`,
    `record: time travel: ${midMessages} messages at seq ${mid}; state at seq ${recording.lastSeq} ${last === live ? 'equals' : 'DIFFERS FROM'} the live session`,
  ].join('\n');
}
