import { appendFileSync, mkdtempSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { crc32 } from 'node:zlib';
import { toArray } from 'rxjs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { append, createSession, defineEvent, defineSlice, replace, SliceWindow, type Snapshot } from '../../src/index';
import { createSession as createFullSession } from '../../src/store/create-session';
import { flightRecorder, readRecording, RecordingError } from '../../src/jsonl/index';
import { splitLines } from '../../src/transcripts/parse';
import { AgentPhases } from '../../src/transcripts/phases';
import { createTranscriptSession, replayTranscript } from '../../src/transcripts/replay';
import { transcriptSlices } from '../../src/transcripts/slices';

const Noted = defineEvent('notes/noted', z.object({ text: z.string() }));
const Boom = defineEvent('notes/boom', z.object({}));
const Notes = defineSlice('notes', {
  policy: 'log',
  schema: z.object({ text: z.string(), seq: z.number(), at: z.number() }),
  // Replay must evict as the live session did. (A time window is not used here: a snapshot does
  // not carry its items' ages, so after a restore they count from the restore's time.)
  window: SliceWindow.count(4),
  reducers: ({ on }) => [
    on(Noted, (_v, e, ctx) => append({ text: e.payload.text, seq: ctx.seq, at: ctx.at })),
    on(Boom, () => {
      throw new Error('boom');
    }),
  ],
});
const Count = defineSlice('count', { policy: 'state', schema: z.number(), initial: [0], reducers: ({ onLatest }) => [onLatest(Noted, (n) => (n ?? 0) + 1)] });

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'rxslice-recording-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** A manual clock for the live session. */
function clock() {
  let now = 1000;
  return { scheduler: { now: () => now, schedule: () => ({ unsubscribe() {} }) } as never, advance: (ms: number) => (now += ms) };
}

const slicesOf = (s: Snapshot) => JSON.stringify(Object.fromEntries(Object.entries(s.slices).map(([k, v]) => [k, v.items])));

/** Records `n` events (one failed dispatch in the middle, which takes no seq: gapless), keeping the live state after each seq. */
function recordRun(file: string, n: number, snapshotEvery: number): Map<number, string> {
  const c = clock();
  const session = createSession({ slices: [Notes, Count], scheduler: c.scheduler });
  const live = new Map<number, string>([[0, slicesOf(session.snapshot({ includeLogs: true }))]]);
  session.committed$.subscribe((env) => live.set(env.seq, slicesOf(session.snapshot({ includeLogs: true }))));
  flightRecorder(session, { file, snapshotEvery });
  for (let i = 0; i < n; i++) {
    c.advance(3);
    if (i === 5) expect(() => session.dispatch(Boom({}))).toThrow();
    session.dispatch(Noted({ text: `n${i}` }));
  }
  session.dispose();
  return live;
}

describe('readRecording', () => {
  it('gives the state at every seq equal to the live state then (windows, ctx.seq and ctx.at included)', () => {
    const file = join(dir, 'run.jsonl');
    const live = recordRun(file, 40, 7);
    const rec = readRecording(file, { slices: [Notes, Count] });
    expect(rec.firstSeq).toBe(0);
    expect(rec.lastSeq).toBe(40);
    expect(rec.size).toBe(40);
    expect(rec.snapshotSeqs).toEqual([0, 7, 14, 21, 28, 35]);
    expect(rec.tornTail).toBeUndefined();
    for (const [seq, state] of live) expect([seq, slicesOf(rec.stateAt(seq))]).toEqual([seq, state]);
    // Backwards and in random order too.
    for (const seq of [40, 3, 39, 0, 22, 6, 21]) expect(slicesOf(rec.stateAt(seq))).toBe(live.get(seq));
    // The failed dispatch took no seq: every seq from 0 to 40 is a committed state.
    expect([...live.keys()]).toEqual(Array.from({ length: 41 }, (_, i) => i));
    expect(rec.stateAt(30).seq).toBe(30);
  });

  it('close() disposes the replay session it keeps between states; a later stateAt replays anew', () => {
    const file = join(dir, 'run.jsonl');
    const live = recordRun(file, 20, 7);
    const made: ReturnType<typeof createSession>[] = [];
    const rec = readRecording(file, {
      slices: [Notes, Count],
      session: (scheduler) => {
        const s = createSession({ slices: [Notes, Count], scheduler });
        made.push(s);
        return s;
      },
    });
    let completed = 0;
    rec.stateAt(10);
    expect(made).toHaveLength(1);
    made[0]!.committed$.subscribe({ complete: () => completed++ });
    rec.stateAt(11); // continues in the same session
    expect(made).toHaveLength(1);
    rec.close();
    expect(completed).toBe(1); // disposed: its streams completed
    rec.close(); // idempotent
    expect(slicesOf(rec.stateAt(12))).toBe(live.get(12));
    expect(made).toHaveLength(2);
  });

  it('replays from the nearest snapshot: O(distance), not from the start', () => {
    const file = join(dir, 'run.jsonl');
    recordRun(file, 40, 7);
    let replayed = 0;
    const rec = readRecording(file, {
      slices: [Notes, Count],
      session: (scheduler) => {
        const s = createSession({ slices: [Notes, Count], scheduler });
        s.committed$.subscribe(() => replayed++);
        return s;
      },
    });
    rec.stateAt(34); // snapshot 28 (restore) + 6 envelopes
    expect(replayed).toBe(7);
    replayed = 0;
    rec.stateAt(34); // already there
    expect(replayed).toBe(0);
    replayed = 0;
    rec.stateAt(35); // exactly a snapshot: just its restore
    expect(replayed).toBe(1);
    replayed = 0;
    rec.stateAt(37); // continues from 35
    expect(replayed).toBe(2);
  });

  it('streams the recorded envelopes for replay, as an iterable and an observable', () => {
    const file = join(dir, 'run.jsonl');
    recordRun(file, 10, 4);
    const rec = readRecording(file, { slices: [Notes, Count] });
    const all = [...rec.envelopes()];
    expect(all.map((e) => e.seq)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(all[0]).toMatchObject({ event: { type: 'notes/noted', payload: { text: 'n0' } }, changed: ['notes', 'count'], effects: [], at: 1003 });
    expect(Object.isFrozen(all[0]?.event)).toBe(true);
    expect([...rec.envelopes({ fromSeq: 6, toSeq: 9 })].map((e) => e.seq)).toEqual([6, 7, 8, 9]);
    let seqs: number[] = [];
    rec.envelopes$({ fromSeq: 9 }).pipe(toArray()).subscribe((list) => (seqs = list.map((e) => e.seq)));
    expect(seqs).toEqual([9, 10]);
  });

  it('drops a torn last line cut at any byte, and reads everything before it', () => {
    const file = join(dir, 'run.jsonl');
    const live = recordRun(file, 12, 5);
    const whole = readFileSync(file);
    const lastStart = whole.lastIndexOf(10, whole.length - 2) + 1;
    for (let cut = lastStart; cut < whole.length; cut++) {
      writeFileSync(file, whole.subarray(0, cut));
      const rec = readRecording(file, { slices: [Notes, Count] });
      expect(rec.lastSeq).toBe(11);
      expect(rec.tornTail).toEqual(cut === lastStart ? undefined : { offset: lastStart, bytes: cut - lastStart });
      expect(slicesOf(rec.stateAt(11))).toBe(live.get(11));
    }
  });

  it('refresh follows a recording while it is written: cut at any byte, the whole lines are indexed, the rest waits', () => {
    const file = join(dir, 'run.jsonl');
    const live = recordRun(file, 30, 7);
    const whole = readFileSync(file);
    // The recording as it was after its header and first snapshot, then grown a few bytes at a time.
    const base = whole.indexOf(10, whole.indexOf(10) + 1) + 1;
    writeFileSync(file, whole.subarray(0, base));
    const rec = readRecording(file, { slices: [Notes, Count] });
    expect([rec.size, rec.lastSeq]).toEqual([0, 0]);
    let added = 0;
    for (let at = base; at < whole.length; at = Math.min(whole.length, at + 97)) {
      appendFileSync(file, whole.subarray(at, Math.min(whole.length, at + 97)));
      added += rec.refresh();
      const complete = whole.lastIndexOf(10, Math.min(whole.length, at + 97) - 1) + 1;
      // Only whole lines count; a cut line is the (provisional) torn tail.
      expect(rec.tornTail === undefined).toBe(complete === Math.min(whole.length, at + 97));
      expect(slicesOf(rec.stateAt(rec.lastSeq))).toBe(live.get(rec.lastSeq));
    }
    expect(added).toBe(30);
    expect([rec.size, rec.lastSeq, rec.snapshotSeqs]).toEqual([30, 30, [0, 7, 14, 21, 28]]);
    expect(rec.refresh()).toBe(0);
    for (const seq of [3, 30, 15]) expect(slicesOf(rec.stateAt(seq))).toBe(live.get(seq));
    expect([...rec.envelopes({ fromSeq: 29 })].map((e) => e.seq)).toEqual([29, 30]);
  });

  it('refresh refuses a file that shrank or was damaged before its new tail, and changes nothing', () => {
    const file = join(dir, 'run.jsonl');
    recordRun(file, 10, 4);
    const whole = readFileSync(file);
    const half = whole.lastIndexOf(10, Math.floor(whole.length / 2)) + 1;
    writeFileSync(file, whole.subarray(0, half));
    const rec = readRecording(file, { slices: [Notes, Count] });
    const lastSeq = rec.lastSeq;
    // A flipped byte in the first appended line, with lines after it: damage, not a torn tail.
    const rest = Buffer.from(whole.subarray(half));
    rest[40] = rest[40] === 0x31 ? 0x32 : 0x31;
    appendFileSync(file, rest);
    expect(() => rec.refresh()).toThrow(/damaged before its tail/);
    expect(rec.lastSeq).toBe(lastSeq);
    writeFileSync(file, whole.subarray(0, 100));
    expect(() => rec.refresh()).toThrow(expect.objectContaining({ code: 'RECORDING_CORRUPT', message: expect.stringMatching(/shrank .* open it again/) }));
    expect(rec.lastSeq).toBe(lastSeq);
  });

  it('drops a last line whose checksum fails (a torn write that kept its newline)', () => {
    const file = join(dir, 'run.jsonl');
    recordRun(file, 12, 5);
    const text = readFileSync(file, 'utf8');
    writeFileSync(file, text.slice(0, -3) + 'X}\n');
    const rec = readRecording(file, { slices: [Notes, Count] });
    expect(rec.lastSeq).toBe(11);
    expect(rec.tornTail?.bytes).toBeGreaterThan(0);
  });

  it('never skips damage before the tail: a flipped bit mid-file is an error', () => {
    const file = join(dir, 'run.jsonl');
    recordRun(file, 12, 5);
    const buf = readFileSync(file);
    const mid = Math.floor(buf.length / 2);
    buf[mid] = (buf[mid] as number) ^ 0x04;
    writeFileSync(file, buf);
    expect(() => readRecording(file, { slices: [Notes, Count] })).toThrow(RecordingError);
    expect(() => readRecording(file, { slices: [Notes, Count] })).toThrow(expect.objectContaining({ code: 'RECORDING_CORRUPT' }));
    expect(() => readRecording(file, { slices: [Notes, Count] })).toThrow(/damaged before its tail/);
  });

  it('reports a missing file, a file that is not a recording, and seqs outside it', () => {
    const file = join(dir, 'run.jsonl');
    expect(() => readRecording(file, { slices: [] })).toThrow(expect.objectContaining({ code: 'RECORDING_NOT_FOUND' }));
    writeFileSync(file, '{"hello":"world"}\n{"a":1}\n');
    expect(() => readRecording(file, { slices: [] })).toThrow(expect.objectContaining({ code: 'RECORDING_CORRUPT' }));
    recordRun(file, 3, 10);
    truncateSync(file, 10);
    expect(() => readRecording(file, { slices: [Notes, Count] })).toThrow(/no snapshot to start from/);
    recordRun(file, 3, 10);
    const rec = readRecording(file, { slices: [Notes, Count] });
    expect(() => rec.stateAt(4)).toThrow(expect.objectContaining({ code: 'RECORDING_SEQ_OUT_OF_RANGE' }));
    expect(() => rec.stateAt(-1)).toThrow(/outside the recording \(0 to 3\)/);
  });

  it('rebuilds states across a restore from the snapshot written after it', () => {
    const file = join(dir, 'run.jsonl');
    const session = createSession({ slices: [Notes, Count] });
    flightRecorder(session, { file });
    session.dispatch(Noted({ text: 'a' }));
    const at1 = session.snapshot({ includeLogs: true });
    session.dispatch(Noted({ text: 'b' }));
    session.restore(at1);
    session.dispatch(Noted({ text: 'c' }));
    const end = slicesOf(session.snapshot({ includeLogs: true }));
    session.dispose();
    const rec = readRecording(file, { slices: [Notes, Count] });
    expect(rec.stateAt(3).slices['count']?.items).toEqual([1]);
    expect(slicesOf(rec.stateAt(4))).toBe(end);
  });

  it('reports a restore inside a batch as a gap it cannot rebuild', () => {
    const file = join(dir, 'run.jsonl');
    const session = createSession({ slices: [Notes, Count] });
    flightRecorder(session, { file, snapshotEvery: 100 });
    const before = session.snapshot({ includeLogs: true });
    session.batch(() => {
      session.dispatch(Noted({ text: 'a' }));
      session.restore(before);
      session.dispatch(Noted({ text: 'b' }));
    });
    session.dispose();
    const rec = readRecording(file, { slices: [Notes, Count] });
    expect(rec.stateAt(1).slices['count']?.items).toEqual([1]);
    expect(() => rec.stateAt(2)).toThrow(expect.objectContaining({ code: 'RECORDING_GAP' }));
    expect(rec.stateAt(3).slices['count']?.items).toEqual([1]); // the snapshot after the batch
  });

  it('fails clearly on a recording of a newer format', () => {
    const file = join(dir, 'run.jsonl');
    recordRun(file, 1, 10);
    const lines = readFileSync(file, 'utf8').split('\n');
    writeFileSync(file, '');
    const body = '{"k":"h","format":"rxslice.recording","formatVersion":9,"snapshotEvery":10}';
    appendFileSync(file, `{"crc":"${crc32(body).toString(16).padStart(8, '0')}","rec":${body}}\n${lines.slice(1).join('\n')}`);
    expect(() => readRecording(file, { slices: [Notes, Count] })).toThrow(/format version 9, newer than this rxslice reads/);
  });
});

describe('time travel on a recording', () => {
  it('restoreTo brings a live session back to any seq as one restored event; nothing recorded runs again', () => {
    const file = join(dir, 'run.jsonl');
    const live = recordRun(file, 20, 6);
    const rec = readRecording(file, { slices: [Notes, Count] });
    const session = createSession({ slices: [Notes, Count] });
    for (let i = 0; i < 3; i++) session.dispatch(Noted({ text: `other${i}` }));
    const types: string[] = [];
    session.committed$.subscribe((c) => types.push(c.event.type));
    rec.restoreTo(session, 12);
    expect(slicesOf(session.snapshot({ includeLogs: true }))).toBe(live.get(12));
    expect(types).toEqual(['rxslice.session.restored']);
    rec.restoreTo(session, 3, { slices: [Count] });
    expect(session.slice(Count).all()).toEqual([3]);
    expect(JSON.stringify(session.slice(Notes).all())).toBe(JSON.stringify(JSON.parse(live.get(12) as string).notes));
    expect(() => rec.restoreTo(session, 99)).toThrow(expect.objectContaining({ code: 'RECORDING_SEQ_OUT_OF_RANGE' }));
  });

  it('fork opens a new session at a past seq whose own events continue from there; the recording and other sessions are untouched', () => {
    const file = join(dir, 'run.jsonl');
    const live = recordRun(file, 20, 6);
    const rec = readRecording(file, { slices: [Notes, Count] });
    const fork = rec.fork(9);
    expect(slicesOf(fork.snapshot({ includeLogs: true }))).toBe(live.get(9));
    expect(fork.lastSeq).toBe(10);
    expect(fork.dispatch(Noted({ text: 'what if' })).seq).toBe(11);
    expect(fork.slice(Count).all()).toEqual([10]);
    expect(slicesOf(rec.stateAt(9))).toBe(live.get(9));
    const made = rec.fork(4, () => createSession({ slices: [Notes, Count] }));
    expect(made.slice(Count).all()).toEqual([4]);
    expect(() => rec.fork(-1)).toThrow(RecordingError);
  });
});

describe('readRecording over a real transcript', () => {
  const DATA = fileURLToPath(new URL('../../examples/data/', import.meta.url));

  it('rebuilds the live state at every seq of the agentlogs-todos replay (statechart and windows included)', () => {
    const file = join(dir, 'todos.jsonl');
    const session = createTranscriptSession();
    const live = new Map<number, string>([[0, slicesOf(session.snapshot({ includeLogs: true }))]]);
    session.committed$.subscribe((env) => live.set(env.seq, slicesOf(session.snapshot({ includeLogs: true }))));
    flightRecorder(session, { file, snapshotEvery: 25 });
    const machineSlice = session.machine(AgentPhases).slice;
    const report = replayTranscript(splitLines(readFileSync(join(DATA, 'agentlogs-todos.jsonl'), 'utf8')), { source: 'todos', session });
    session.dispose();
    expect(report.events).toBeGreaterThan(20);

    const slices = [...transcriptSlices, machineSlice];
    const rec = readRecording(file, {
      slices,
      session: (scheduler) => {
        const s = createFullSession({ slices: transcriptSlices, scheduler });
        s.install(AgentPhases);
        return s;
      },
    });
    expect(rec.size).toBe(live.size - 1);
    for (const [seq, state] of live) expect([seq, slicesOf(rec.stateAt(seq))]).toEqual([seq, state]);
  });
});

describe('relative snapshots (format version 2)', () => {
  const Board = defineSlice('board', {
    policy: 'state',
    schema: z.object({ cells: z.array(z.number()) }),
    initial: [{ cells: [] }],
    reducers: ({ onLatest }) => [onLatest(Noted, (b, e) => (e.payload.text.endsWith('0') ? { cells: [...(b?.cells ?? []), e.payload.text.length] } : (b ?? { cells: [] })))],
  });
  const Tags = defineSlice('tags', {
    policy: 'log',
    schema: z.string(),
    // Rewritten wholesale every third note: no run of the previous snapshot's items survives.
    reducers: ({ on }) => [on(Noted, (v, e) => (e.payload.text.length % 3 === 0 ? replace([e.payload.text, 'x']) : append(e.payload.text)))],
  });
  const Marks = defineSlice('marks', {
    policy: 'log',
    schema: z.object({ seq: z.number(), kept: z.boolean() }),
    // Keeps every fifth mark however old, plus the newest 4: evicts from the middle of the log.
    window: SliceWindow.composite(SliceWindow.predicate((m: { kept: boolean }) => m.kept, 3), SliceWindow.count(4)),
    reducers: ({ on }) => [on(Noted, (_v, _e, ctx) => append({ seq: ctx.seq, kept: ctx.seq % 5 === 0 }))],
  });
  const slices = [Notes, Count, Board, Tags, Marks];
  const lines = (file: string) => readFileSync(file, 'utf8').split('\n').filter(Boolean).map((l) => (JSON.parse(l) as { rec: { k: string; seq?: number; base?: number; snapshot?: { slices: Record<string, object> } } }).rec);

  /** A snapshot every envelope: every state is read from a snapshot line alone, folded back to the nearest whole one. */
  function recordEverySeq(file: string, n: number): Map<number, string> {
    const c = clock();
    const session = createSession({ slices, scheduler: c.scheduler });
    const live = new Map<number, string>();
    session.committed$.subscribe((env) => live.set(env.seq, slicesOf(session.snapshot({ includeLogs: true }))));
    const recorder = flightRecorder(session, { file, snapshotEvery: 1 });
    live.set(0, slicesOf(session.snapshot({ includeLogs: true })));
    let saved: Snapshot | undefined;
    for (let i = 0; i < n; i++) {
      c.advance(3);
      session.dispatch(Noted({ text: `note-${i}`.repeat(1 + (i % 4)) }));
      if (i === 12) saved = session.snapshot({ includeLogs: true });
      // A restore makes new item objects: the snapshot after it has no run to keep.
      if (i === 25 && saved !== undefined) session.restore(saved);
    }
    recorder.close();
    session.dispose();
    return live;
  }

  it('writes every tenth snapshot whole and the others relative to the one before, and reads back the live state at every seq', () => {
    const file = join(dir, 'rel.jsonl');
    const live = recordEverySeq(file, 45);
    const snaps = lines(file).filter((r) => r.k === 's');
    expect(snaps.length).toBe(live.size);
    // Whole: the first and every tenth after it; relative: the others, each to the snapshot line before it.
    snaps.forEach((s, i) => expect([i, s.base]).toEqual([i, i % 10 === 0 ? undefined : snaps[i - 1]?.seq]));
    // The windowed log is written as a run of the previous items plus what was added.
    const notes = snaps[5]?.snapshot?.slices['notes'] as { runs?: number[]; items: unknown[] };
    expect(notes.runs).toEqual([1, 3, 1]);
    expect(notes.items).toHaveLength(1);
    // The marks log lost an item from its middle: two runs of kept items.
    expect(snaps.some((s) => ((s.snapshot?.slices['marks'] as { runs?: number[] }).runs?.length ?? 0) >= 6)).toBe(true);
    const rec = readRecording(file, { slices });
    expect(rec.snapshotSeqs).toEqual([...live.keys()].sort((a, b) => a - b));
    for (const [seq, state] of live) expect([seq, slicesOf(rec.stateAt(seq))]).toEqual([seq, state]);
    // Backwards and jumping across whole snapshots: every chain is folded from its own start.
    const fresh = readRecording(file, { slices });
    for (const seq of [46, 9, 10, 11, 39, 0, 27, 26, 25, 19, 20, 31, 1]) expect([seq, slicesOf(fresh.stateAt(seq))]).toEqual([seq, live.get(seq)]);
  });

  it('rejects a relative snapshot whose base or run does not match the line before it', () => {
    const file = join(dir, 'rel.jsonl');
    recordEverySeq(file, 4);
    const text = readFileSync(file, 'utf8').split('\n');
    const rewrite = (index: number, change: (body: string) => string) => {
      const copy = [...text];
      const body = change((copy[index] as string).slice('{"crc":"00000000","rec":'.length, -1));
      copy[index] = `{"crc":"${crc32(body).toString(16).padStart(8, '0')}","rec":${body}}`;
      const bad = join(dir, `bad-${index}.jsonl`);
      writeFileSync(bad, copy.join('\n'));
      return readRecording(bad, { slices });
    };
    // Lines: header, snapshot 0, envelope 1, snapshot 1, envelope 2, snapshot 2 (base 1).
    expect(text[5]).toContain('"k":"s","seq":2,"base":1');
    expect(() => rewrite(5, (b) => b.replace('"base":1', '"base":7')).stateAt(2)).toThrow(/relative to seq 7, which is not the snapshot before it/);
    // The notes log kept its one item and added one.
    expect(text[5]).toContain('"notes":{"policy":"log","schemaVersion":1,"runs":[0,1,1],"items":[{');
    expect(() => rewrite(5, (b) => b.replace('"runs":[0,1,1]', '"runs":[0,5,1]')).stateAt(2)).toThrow(/keeps items 0 to 0 \+ 5 of slice "notes", outside the 1 of the snapshot before it/);
    expect(() => rewrite(5, (b) => b.replace('"runs":[0,1,1]', '"runs":[0,1,0]')).stateAt(2)).toThrow(/holds 1 items of slice "notes" that its runs do not place/);
    expect(() => rewrite(5, (b) => b.replace('"runs":[0,1,1]', '"runs":[0,1]')).stateAt(2)).toThrow(/not triples/);
    // The good file reads.
    expect(slicesOf(readRecording(file, { slices }).stateAt(1))).toContain('note-0');
  });

  it('still reads a format version 1 recording (whole snapshots only, no base)', () => {
    const file = join(dir, 'v1.jsonl');
    const live = recordEverySeq(file, 15);
    // What the version 1 recorder wrote: the same lines with every snapshot whole.
    const rec2 = readRecording(file, { slices });
    const v1 = lines(file).map((r) => {
      if (r.k === 'h') return { ...r, formatVersion: 1 };
      if (r.k !== 's') return r;
      const { base: _base, ...rest } = r;
      return { ...rest, snapshot: JSON.parse(JSON.stringify(rec2.stateAt(r.seq as number))) as object };
    });
    for (const r of v1) expect(JSON.stringify(r)).not.toContain('"runs"');
    const v1File = join(dir, 'v1-real.jsonl');
    writeFileSync(v1File, v1.map((r) => { const body = JSON.stringify(r); return `{"crc":"${crc32(body).toString(16).padStart(8, '0')}","rec":${body}}\n`; }).join(''));
    const rec = readRecording(v1File, { slices });
    for (const [seq, state] of live) expect([seq, slicesOf(rec.stateAt(seq))]).toEqual([seq, state]);
  });
});
