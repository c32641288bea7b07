/**
 * Workload 9 — durable files (issue 10).
 *
 * - 10s, atomic snapshot file: 200 saves of a ~100 KB snapshot (one log slice of 1,000
 *   `{ id, text }` items). rxslice: `saveSnapshotSync` (JSON, write-file-atomic temp file +
 *   fsync + rename, then a directory fsync). The floor ("plain"): `JSON.stringify` the same
 *   snapshot, `writeFileSync` a temp file and `renameSync` it over the target (no fsync).
 *   `plain (write + fsync + rename + dir fsync)` is the same durability written by hand.
 *   Reports µs per save; target: rxslice within 2× of the plain write + rename.
 * - 10f, flight recorder: the bundled example transcripts (examples/data) replayed in a cycle
 *   through the example session (`createTranscriptSession()`, validation 'always', windows,
 *   statechart, notify effect) until 20,000 events, without and with `flightRecorder(session,
 *   { file, snapshotEvery: 1000, fsync: 'never' })` (its `close()` inside the timing), in
 *   alternating pairs (`measurePaired`). Reports ns per event and the overhead (recorded /
 *   unrecorded); target ≤ 1.2×.
 */
import { closeSync, fsyncSync, mkdtempSync, openSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { append, createSession, defineEvent, defineSlice, type Event, type Snapshot } from '../../src/index';
import { flightRecorder, loadSnapshot, readRecording, saveSnapshotSync } from '../../src/jsonl/index';
import { TranscriptClock, timestampOf } from '../../src/transcripts/clock';
import { parseTranscript, splitLines } from '../../src/transcripts/parse';
import { createTranscriptSession } from '../../src/transcripts/replay';
import { check, checkEqual, measure, measurePaired, nowMs, type Impl, type RunResult } from '../lib/measure';
import type { Workload } from './workload';

/** Saves in the timed run of 10s. */
export const SNAPSHOT_SAVES = 200;
const ITEMS = 1_000;

const Item = z.object({ id: z.number(), text: z.string() });
const Added = defineEvent('items/added', Item);
const Items = defineSlice('items', { policy: 'log', schema: Item, reducers: ({ on }) => [on(Added, (_v, e) => append(e.payload))] });

let snapshot: Snapshot | undefined;
/** A snapshot of ~100 KB: 1,000 items of ~100 bytes of JSON each. */
function bigSnapshot(): Snapshot {
  if (snapshot !== undefined) return snapshot;
  const session = createSession({ slices: [Items] });
  for (let i = 0; i < ITEMS; i++) session.dispatch(Added({ id: i, text: `item ${i}: ${'x'.repeat(70)}` }));
  return (snapshot = session.snapshot({ includeLogs: true }));
}

type Save = (path: string, snapshot: Snapshot) => void;

const bareSave: Save = (path, s) => {
  const tmp = `${path}.tmp`;
  writeFileSync(tmp, JSON.stringify(s));
  renameSync(tmp, path);
};
const durableByHand: Save = (path, s) => {
  const tmp = `${path}.tmp`;
  const fd = openSync(tmp, 'w');
  try {
    writeFileSync(fd, JSON.stringify(s));
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, path);
  const dir = openSync(dirname(path), 'r');
  try {
    fsyncSync(dir);
  } finally {
    closeSync(dir);
  }
};

function saveRun(save: Save, ops: number): RunResult {
  const s = bigSnapshot();
  const dir = mkdtempSync(join(tmpdir(), 'rxslice-bench-snap-'));
  const path = join(dir, 'state.json');
  try {
    const t0 = nowMs();
    for (let k = 0; k < ops; k++) save(path, s);
    const ms = nowMs() - t0;
    const bytes = statSync(path).size;
    check(bytes > 90_000 && bytes < 200_000, `snapshot file of ${bytes} bytes, expected ~100 KB`);
    checkEqual(loadSnapshot(path, [Items]).slices['items']?.items.length, ITEMS, 'items in the saved file');
    check(readdirSync(dir).length === 1, 'a temporary file was left behind');
    return { ms, extra: { kb: bytes / 1024 } };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const saveImpl =
  (save: Save): Impl =>
  async () => {
    const m = await measure({ ops: SNAPSHOT_SAVES, warmupOps: 20 }, (ops) => saveRun(save, ops));
    // µs per save reads better than ns here.
    return { value: m.value / 1000, ...(m.extra === undefined ? {} : { extra: m.extra }) };
  };

export const snapshotFileWorkload: Workload = {
  id: 'snapshot-file',
  number: '10s',
  title: 'Atomic snapshot file: save a ~100 KB snapshot (temp + fsync + rename + directory fsync)',
  unit: 'µs/save',
  columns: [{ key: 'kb', label: 'file KB', digits: 0 }],
  notes: [
    'rxslice: `saveSnapshotSync` (write-file-atomic 7: temp file, fsync, rename; then an fsync of the directory). plain loop: `JSON.stringify` + `writeFileSync(tmp)` + `renameSync` with no fsync (the floor the issue names). "plain (durable by hand)": the same steps as rxslice, written directly.',
    'Every save is checked afterwards: one ~100 KB file, readable with `loadSnapshot`, no temporary file left.',
  ],
  contenders: {
    plain: saveImpl(bareSave),
    'plain-durable': saveImpl(durableByHand),
    rxslice: saveImpl((path, s) => saveSnapshotSync(path, s)),
  },
};

// ---- 10f: flight recorder --------------------------------------------------------------------

/** Events dispatched per timed run of 10f. */
export const RECORDED_EVENTS = 20_000;
const DATA = fileURLToPath(new URL('../../examples/data/', import.meta.url));

let corpus: readonly Event[] | undefined;
/** The bundled transcripts' events that the example session accepts, in file order. */
function loadCorpus(): readonly Event[] {
  if (corpus !== undefined) return corpus;
  const probe = createTranscriptSession();
  const events: Event[] = [];
  for (const file of readdirSync(DATA).filter((f) => f.endsWith('.jsonl')).sort()) {
    for (const event of parseTranscript(splitLines(readFileSync(join(DATA, file), 'utf8'))).events) {
      try {
        probe.dispatch(event);
        events.push(event);
      } catch {
        // Rejected by the example's schemas: left out of both sides.
      }
    }
  }
  probe.dispose();
  check(events.length > 1000, 'the bundled transcripts gave too few events');
  return (corpus = events);
}

/**
 * Recordings written by the runs, checked once the measurement is done (see {@link checkRecordings}):
 * reading a recording back between runs would leave its garbage and JIT state to the next run.
 */
const uncheckedRecordings: { readonly dir: string; readonly file: string; readonly lastSeq: number; readonly ops: number }[] = [];

/** Checks every recording of {@link uncheckedRecordings}: every envelope is in the file, up to the session's last seq. */
function checkRecordings(): void {
  for (const { dir, file, lastSeq, ops } of uncheckedRecordings.splice(0)) {
    try {
      const recording = readRecording(file, { slices: [] });
      checkEqual(recording.lastSeq, lastSeq, 'last recorded seq');
      check(recording.size >= ops, `${recording.size} envelopes recorded for ${ops} dispatches`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
}

function replayRun(ops: number, record: boolean): RunResult {
  const events = loadCorpus();
  const dir = mkdtempSync(join(tmpdir(), 'rxslice-bench-rec-'));
  const file = join(dir, 'run.jsonl');
  let keep = false;
  try {
    const session = createTranscriptSession();
    const clock = session.scheduler instanceof TranscriptClock ? session.scheduler : undefined;
    const n = events.length;
    const t0 = nowMs();
    const recorder = record ? flightRecorder(session, { file, snapshotEvery: 1000, fsync: 'never' }) : undefined;
    for (let k = 0; k < ops; k++) {
      const event = events[k % n] as Event;
      if (clock !== undefined) {
        const at = timestampOf(event);
        if (at !== undefined) clock.advanceTo(at);
      }
      session.dispatch(event);
    }
    clock?.finish();
    recorder?.close();
    const ms = nowMs() - t0;
    const lastSeq = session.lastSeq;
    session.dispose();
    if (record) {
      uncheckedRecordings.push({ dir, file, lastSeq, ops });
      keep = true;
    }
    // The session stays alive through the timed runs, as in every workload (see `measure`).
    return { ms, store: session };
  } finally {
    if (!keep) rmSync(dir, { recursive: true, force: true });
  }
}

export const recorderWorkload: Workload = {
  id: 'recorder',
  number: '10f',
  title: 'Flight recorder: the example transcripts replayed (20,000 events) without and with recording',
  unit: 'ns/event',
  columns: [
    { key: 'baseNs', label: 'unrecorded (ns)', digits: 0 },
    { key: 'overhead', label: 'overhead (recorded / unrecorded)', digits: 2 },
  ],
  notes: [
    "Recorded: `flightRecorder(session, { file, snapshotEvery: 1000, fsync: 'never' })` from before the first dispatch to its `close()` (the last flush and fsync), both inside the timing; unrecorded and recorded runs alternate in one process (`measurePaired`), each run's session kept alive through the timed runs; the recordings are read back and checked after the measurement.",
    'The session is the example\'s `createTranscriptSession()` (validation \'always\', windows, statechart, notify effect), fed the bundled transcripts of examples/data in a cycle.',
  ],
  contenders: {
    rxslice: async () => {
      const result = await measurePaired({ ops: RECORDED_EVENTS, warmupOps: 2_000 }, (ops) => replayRun(ops, false), (ops) => replayRun(ops, true));
      checkRecordings();
      return result;
    },
  },
};
