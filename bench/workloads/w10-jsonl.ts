/**
 * Workload 10 — the JSONL slice storage (issue 10, `rxslice/storage/jsonl`).
 *
 * - 10a, journal appends: a session of two slices (a log of `{ id, text }` items and a count),
 *   stored with `jsonl({ dir, fsync })`; every event changes both slices, so every dispatch
 *   writes one commit record of ~110 bytes (seq, at, both slices' ops, CRC32). Contenders: one
 *   per fsync policy (`'never'`, `'batch'`, `'always'`), against the floors "plain loop" (a
 *   `fs.writeSync` loop of the very same bytes, taken from a journal rxslice wrote, no fsync) and
 *   "plain (write + fdatasync)" (the same loop with an `fdatasyncSync` after every record).
 *   Reports ns per record and records/s; "rxslice (memory storage)" is the same session without the journal. Targets: `'never'` at ≥ 0.7× the plain loop's
 *   records/s (≤ 1.43× its time), `'always'` at ≥ 0.8× of the write + fdatasync loop (≤ 1.25×).
 * - 10o, open + recover: a directory holding 1,000,000 journal records (written once through a
 *   session, outside the timing, compaction off so that all of them are journal records) is
 *   opened by `createSession({ storage: jsonl({ dir }) })`: lock, read, CRC and seq check of
 *   every record, replay into the in-memory log. Reports ms per open; target < 2,000 ms. The
 *   floor reads the same file and `JSON.parse`s every line.
 */
import { closeSync, fdatasyncSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { append, createSession, defineEvent, defineSlice } from '../../src/index';
import { jsonl, type JsonlFsync } from '../../src/jsonl/index';
import { check, checkEqual, measure, nowMs, type Impl, type RunResult } from '../lib/measure';
import type { Workload } from './workload';

/** Records in a timed run of 10a (fewer when the time budget says so, e.g. with `'always'`). */
export const APPEND_RECORDS = 20_000;
/** Records in the directory that 10o opens. */
export const RECOVER_RECORDS = 1_000_000;

const Item = z.object({ id: z.number(), text: z.string() });
const Added = defineEvent('items/added', Item);
const Items = defineSlice('items', { policy: 'log', schema: Item, reducers: ({ on }) => [on(Added, (_v, e) => append(e.payload))] });
const Count = defineSlice('count', { policy: 'state', schema: z.number(), initial: [0], reducers: ({ onLatest }) => [onLatest(Added, (c) => (c ?? 0) + 1)] });
const SLICES = [Items, Count] as const;
const payload = (i: number) => ({ id: i, text: `item ${i}: ${'x'.repeat(40)}` });

const journalFile = (dir: string): string => {
  const name = readdirSync(dir).find((f) => f.startsWith('journal-'));
  check(name !== undefined, `no journal file in ${dir}`);
  return join(dir, name);
};

function withDir<T>(prefix: string, body: (dir: string) => T): T {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  try {
    return body(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

// ---- 10a: appends ----------------------------------------------------------------------------

/**
 * Journal directories written by timed or warm-up runs, checked once the measurement is done
 * (see {@link checkJournals}): a reopen between runs recovers 20,000 records and leaves the next
 * run 1.5-2× slower in the same process (measured), which no appending application sees mid-stream.
 */
const unchecked: { readonly dir: string; readonly ops: number }[] = [];

/** Checks every journal of {@link unchecked}: one line per event, and a reopen recovers all of them. */
function checkJournals(): void {
  for (const { dir, ops } of unchecked.splice(0)) {
    try {
      const lines = readFileSync(journalFile(dir), 'utf8').split('\n').length - 1;
      checkEqual(lines, ops, 'records in the journal');
      const reopened = createSession({ slices: SLICES, storage: jsonl({ dir, fsync: 'never', recovery: 'absolute' }) });
      checkEqual(reopened.lastSeq, ops, 'recovered seq');
      checkEqual(reopened.slice(Count).all()[0], ops, 'recovered count');
      checkEqual(reopened.slice(Items).size, ops, 'recovered items');
      reopened.dispose();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
}

function appendRun(fsync: JsonlFsync | 'memory', ops: number): RunResult {
  const dir = mkdtempSync(join(tmpdir(), 'rxslice-bench-jsonl-'));
  try {
    const t0 = nowMs();
    const session = createSession({ slices: SLICES, ...(fsync === 'memory' ? {} : { storage: jsonl({ dir, fsync }) }) });
    for (let i = 0; i < ops; i++) session.dispatch(Added(payload(i)));
    session.dispose(); // flushes (fdatasync under 'batch'), closes, unlocks
    const ms = nowMs() - t0;
    checkEqual(session.lastSeq, ops, 'last seq');
    if (fsync !== 'memory') unchecked.push({ dir, ops });
    // The store stays alive through the timed runs, as in every workload (see `measure`).
    return { ms, extra: { recPerSec: (ops / ms) * 1000 }, store: session };
  } finally {
    if (fsync === 'memory') rmSync(dir, { recursive: true, force: true });
  }
}

let journalLines: readonly Buffer[] | undefined;
/** The lines of a journal rxslice wrote for {@link APPEND_RECORDS} events: the floor writes these bytes. */
function sameBytes(): readonly Buffer[] {
  if (journalLines !== undefined) return journalLines;
  return (journalLines = withDir('rxslice-bench-jsonl-src-', (dir) => {
    const session = createSession({ slices: SLICES, storage: jsonl({ dir, fsync: 'never' }) });
    for (let i = 0; i < APPEND_RECORDS; i++) session.dispatch(Added(payload(i)));
    session.dispose();
    const text = readFileSync(journalFile(dir), 'utf8');
    const lines = text.split('\n').slice(0, -1).map((l) => Buffer.from(`${l}\n`));
    checkEqual(lines.length, APPEND_RECORDS, 'records rxslice wrote');
    return lines;
  }));
}

function plainRun(sync: boolean, ops: number): RunResult {
  const lines = sameBytes();
  return withDir('rxslice-bench-plain-', (dir) => {
    const file = join(dir, 'journal.jsonl');
    const t0 = nowMs();
    const fd = openSync(file, 'a');
    let bytes = 0;
    for (let i = 0; i < ops; i++) {
      const line = lines[i % lines.length] as Buffer;
      bytes += writeSync(fd, line);
      if (sync) fdatasyncSync(fd);
    }
    closeSync(fd);
    const ms = nowMs() - t0;
    checkEqual(readFileSync(file).length, bytes, 'bytes in the file');
    return { ms, extra: { recPerSec: (ops / ms) * 1000 } };
  });
}

const appendImpl =
  (run: (ops: number) => RunResult): Impl =>
  async () => {
    const result = await measure({ ops: APPEND_RECORDS, warmupOps: 1_000 }, run);
    checkJournals();
    return result;
  };

export const journalAppendWorkload: Workload = {
  id: 'journal-append',
  number: '10a',
  title: 'JSONL storage: one commit record per event (2 slices changed per event), per fsync policy',
  unit: 'ns/record',
  columns: [{ key: 'recPerSec', label: 'records/s', digits: 0 }],
  notes: [
    "rxslice: `createSession({ slices: [items (log), count (state)], storage: jsonl({ dir, fsync }) })`, one dispatch per record, from the factory's open to `dispose()` (its last flush) inside the timing. Each record is ~110 bytes: seq, at, both slices' ops and versions, CRC32.",
    'plain loop: `fs.writeSync` of the same bytes (the lines of a journal rxslice wrote) to a file opened for appending, no fsync. "plain (write + fdatasync)": the same loop with `fdatasyncSync` after every record, the floor of `\'always\'`.',
    "Every run is checked after the measurement (not between runs: a reopen that recovers 20,000 records slows the next run of the same process 1.5-2×): one line per event, and a reopen with `recovery: 'absolute'` recovers every event. Each run's session stays alive through the timed runs, as in the other workloads. Ratios: `'never'` and `'batch'` against the plain loop, `'always'` against write + fdatasync. \"rxslice (memory storage)\": the same session and events without `jsonl` (what the session itself costs; the journal's own cost is the difference).",
  ],
  contenders: {
    plain: appendImpl((ops) => plainRun(false, ops)),
    'plain-fsync': appendImpl((ops) => plainRun(true, ops)),
    rxslice: appendImpl((ops) => appendRun('never', ops)),
    'rxslice-batch': appendImpl((ops) => appendRun('batch', ops)),
    'rxslice-always': appendImpl((ops) => appendRun('always', ops)),
    'rxslice-memory': appendImpl((ops) => appendRun('memory', ops)),
  },
};

// ---- 10r: open + recover ---------------------------------------------------------------------

const recoverDirs = new Map<boolean, string>();
/**
 * A directory holding {@link RECOVER_RECORDS} events, written once per process: all in the
 * journal (compaction off), or as the default compaction leaves them (a base file and the
 * journal written since).
 */
function bigJournal(compacted = false): string {
  const known = recoverDirs.get(compacted);
  if (known !== undefined) return known;
  const dir = mkdtempSync(join(tmpdir(), 'rxslice-bench-recover-'));
  process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  const session = createSession({ slices: SLICES, storage: jsonl({ dir, fsync: 'never', ...(compacted ? {} : { compactBytes: Number.POSITIVE_INFINITY }) }) });
  for (let i = 0; i < RECOVER_RECORDS; i++) session.dispatch(Added({ id: i, text: `item ${i}` }));
  session.dispose();
  recoverDirs.set(compacted, dir);
  return dir;
}

function recoverRun(compacted = false): RunResult {
  const dir = bigJournal(compacted);
  const t0 = nowMs();
  const session = createSession({ slices: SLICES, storage: jsonl({ dir, fsync: 'never' }) });
  const ms = nowMs() - t0;
  checkEqual(session.lastSeq, RECOVER_RECORDS, 'recovered seq');
  checkEqual(session.slice(Items).size, RECOVER_RECORDS, 'recovered items');
  checkEqual(session.slice(Items).latest()?.id, RECOVER_RECORDS - 1, 'last recovered item');
  checkEqual(session.slice(Count).all()[0], RECOVER_RECORDS, 'recovered count');
  session.dispose();
  return { ms, store: session };
}

function parseRun(): RunResult {
  const dir = bigJournal();
  const t0 = nowMs();
  const text = readFileSync(journalFile(dir), 'utf8');
  let n = 0;
  let start = 0;
  for (let end = text.indexOf('\n'); end !== -1; end = text.indexOf('\n', start)) {
    JSON.parse(text.slice(start, end));
    n++;
    start = end + 1;
  }
  const ms = nowMs() - t0;
  checkEqual(n, RECOVER_RECORDS, 'lines parsed');
  return { ms };
}

/** One timed open after one warm-up open (the file is large; each open takes about a second). */
const once =
  (run: () => RunResult): Impl =>
  () => {
    run();
    const r = run();
    return { value: r.ms, extra: { ops: 1 } };
  };

export const journalRecoverWorkload: Workload = {
  id: 'journal-recover',
  number: '10o',
  title: 'JSONL storage: open + recover a journal of 1,000,000 records',
  unit: 'ms/open',
  maxRounds: 1,
  notes: [
    "rxslice: `createSession({ slices, storage: jsonl({ dir }) })` on a directory of 1,000,000 journal records (~180 MB; each event appended to a log and bumped a count): lock, read, CRC32 + seq check of every record, replay into memory; one warm-up open, then one timed. plain loop: `readFileSync` + `JSON.parse` of every line (no checks, no state).",
    'rxslice (default compaction): the same 1,000,000 events written with the default `compactBytes` (8 MiB), so the directory holds a base file (one JSON document of the slices) and the journal written since the last compaction; opening reads the base, then replays that journal.',
  ],
  contenders: {
    plain: once(parseRun),
    rxslice: once(() => recoverRun(false)),
    'rxslice-compacted': once(() => recoverRun(true)),
  },
};
