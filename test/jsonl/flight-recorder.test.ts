import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

/** When set, the recorder's writes fail as a full disk would. */
const disk = vi.hoisted(() => ({ full: false }));
vi.mock('node:fs', async (importOriginal) => {
  const fs = await importOriginal<typeof import('node:fs')>();
  return {
    ...fs,
    writeSync: (...args: Parameters<typeof fs.writeSync>) => {
      if (disk.full) throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
      return (fs.writeSync as (...a: unknown[]) => number)(...args);
    },
  };
});
import { z } from 'zod';
import { append, createSession, defineEffect, defineEvent, defineSlice, isRxSliceError, withEffects, type RxSliceError } from '../../src/index';
import { flightRecorder, FlightRecorderError } from '../../src/jsonl/index';

const Noted = defineEvent('notes/noted', z.object({ text: z.string() }));
const Notes = defineSlice('notes', { policy: 'log', schema: z.object({ text: z.string() }), reducers: ({ on }) => [on(Noted, (_v, e) => append(e.payload))] });
const Count = defineSlice('count', { policy: 'state', schema: z.number(), initial: [0], reducers: ({ onLatest }) => [onLatest(Noted, (n) => (n ?? 0) + 1)] });

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'rxslice-recorder-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** The records of a recording, each line checked: newline-terminated JSON whose `crc` is the CRC32 of its `rec` text. */
function records(file: string): { k: string; seq?: number; [key: string]: unknown }[] {
  const text = readFileSync(file, 'utf8');
  expect(text.endsWith('\n')).toBe(true);
  return text
    .slice(0, -1)
    .split('\n')
    .map((line) => {
      const { crc, rec } = JSON.parse(line) as { crc: string; rec: { k: string } };
      const body = line.slice('{"crc":"00000000","rec":'.length, -1);
      expect(JSON.parse(body)).toEqual(rec);
      expect(crc).toBe(crc32(body).toString(16).padStart(8, '0'));
      return rec;
    });
}

describe('flightRecorder', () => {
  it('writes a header, a base snapshot, then every committed envelope with its changed slices and effects', () => {
    const file = join(dir, 'run.jsonl');
    const session = createSession({ slices: [Notes, Count], events: [defineEvent('nobody/listens', z.number())] });
    session.dispatch(Noted({ text: 'before' }));
    const recorder = flightRecorder(session, { file, snapshotEvery: 1000 });
    session.dispatch(Noted({ text: 'a' }), { correlationId: 'c1' });
    session.dispatch({ type: 'nobody/listens', payload: 1 });
    recorder.flush();
    const recs = records(file);
    expect(recs.map((r) => [r.k, r.seq])).toEqual([
      ['h', undefined],
      ['s', 1],
      ['e', 2],
      ['e', 3],
    ]);
    expect(recs[0]).toEqual({ k: 'h', format: 'rxslice.recording', formatVersion: 2, snapshotEvery: 1000 });
    expect((recs[1] as unknown as { snapshot: { slices: object } }).snapshot.slices).toEqual({
      notes: { policy: 'log', schemaVersion: 1, items: [{ text: 'before' }] },
      count: { policy: 'state', schemaVersion: 1, items: [1] },
    });
    expect(recs[2]).toMatchObject({ seq: 2, event: { type: 'notes/noted', payload: { text: 'a' } }, meta: { correlationId: 'c1' }, changed: ['notes', 'count'], effects: [] });
    expect(typeof recs[2]?.['at']).toBe('number');
    expect(recs[3]).toMatchObject({ seq: 3, changed: [] });
    expect(recorder.recorded).toBe(2);
    recorder.close();
  });

  it("writes each envelope's body as JSON.stringify of its fields, whatever meta, changed slices and effects it carries", () => {
    const file = join(dir, 'run.jsonl');
    const Notify = defineEffect('notes/notify', z.object({ text: z.string() }));
    const Shouted = defineEvent('notes/shouted', z.object({ text: z.string() }));
    const Loud = defineSlice('loud', {
      policy: 'log',
      schema: z.object({ text: z.string() }),
      reducers: ({ on }) => [on(Shouted, (_v, e) => withEffects(append(e.payload), [Notify({ text: e.payload.text })]))],
    });
    const session = createSession({ slices: [Notes, Count, Loud], events: [defineEvent('nobody/listens', z.number())] });
    const committed: unknown[] = [];
    session.committed$.subscribe((c) => committed.push({ k: 'e', seq: c.seq, at: c.at, event: c.event, meta: c.meta, changed: c.changed, effects: c.effects }));
    const recorder = flightRecorder(session, { file, snapshotEvery: 1000 });
    session.dispatch(Noted({ text: 'a' }));
    session.dispatch(Noted({ text: 'b "quoted" \u2028 é' }), { correlationId: 'c1' });
    session.dispatch(Noted({ text: 'c' }), { correlationId: 'c1' });
    session.dispatch(Shouted({ text: 'x' }));
    session.dispatch(Shouted({ text: 'y' }), { causationId: 4, source: 's' });
    session.dispatch({ type: 'nobody/listens', payload: 1 });
    session.dispatch(Noted({ text: 'd' }));
    recorder.close();
    const lines = readFileSync(file, 'utf8').trimEnd().split('\n');
    const bodies = lines.map((line) => line.slice('{"crc":"00000000","rec":'.length, -1)).filter((body) => body.startsWith('{"k":"e"'));
    expect(bodies).toEqual(committed.map((c) => JSON.stringify(c)));
    expect(bodies).toHaveLength(7);
  });

  it('writes a snapshot every N envelopes', () => {
    const file = join(dir, 'run.jsonl');
    const session = createSession({ slices: [Notes, Count] });
    const recorder = flightRecorder(session, { file, snapshotEvery: 3 });
    for (let i = 0; i < 7; i++) session.dispatch(Noted({ text: `n${i}` }));
    recorder.close();
    const snaps = records(file).filter((r) => r.k === 's');
    expect(snaps.map((r) => r.seq)).toEqual([0, 3, 6]);
    expect((snaps[2] as unknown as { snapshot: { slices: { count: { items: number[] } } } }).snapshot.slices.count.items).toEqual([6]);
  });

  it('inside a batch, takes the due snapshot after the batch, labelled with the seq it holds', () => {
    const file = join(dir, 'run.jsonl');
    const session = createSession({ slices: [Notes, Count] });
    const recorder = flightRecorder(session, { file, snapshotEvery: 2 });
    session.batch(() => {
      for (let i = 0; i < 3; i++) session.dispatch(Noted({ text: `n${i}` }));
    });
    recorder.close();
    const recs = records(file);
    expect(recs.map((r) => `${r.k}${r.seq ?? ''}`)).toEqual(['h', 's0', 'e1', 'e2', 'e3', 's3']);
    expect((recs[5] as unknown as { snapshot: { slices: { count: { items: number[] } } } }).snapshot.slices.count.items).toEqual([3]);
  });

  it('writes a snapshot right after a restore (a restore cannot be replayed from its payload)', () => {
    const file = join(dir, 'run.jsonl');
    const session = createSession({ slices: [Notes, Count] });
    const recorder = flightRecorder(session, { file });
    const before = session.snapshot();
    session.dispatch(Noted({ text: 'x' }));
    session.restore(before);
    recorder.close();
    expect(records(file).map((r) => `${r.k}${r.seq ?? ''}`)).toEqual(['h', 's0', 'e1', 'e2', 's2']);
  });

  it('buffers lines until flush (fsync never), and writes each envelope at once with fsync always', () => {
    const buffered = join(dir, 'buffered.jsonl');
    const s1 = createSession({ slices: [Notes, Count] });
    const r1 = flightRecorder(s1, { file: buffered });
    s1.dispatch(Noted({ text: 'a' }));
    expect(records(buffered).map((r) => r.k)).toEqual(['h', 's']);
    r1.flush();
    expect(records(buffered).map((r) => r.k)).toEqual(['h', 's', 'e']);
    r1.close();

    const always = join(dir, 'always.jsonl');
    const s2 = createSession({ slices: [Notes, Count] });
    const r2 = flightRecorder(s2, { file: always, fsync: 'always' });
    s2.dispatch(Noted({ text: 'a' }));
    expect(records(always).map((r) => r.k)).toEqual(['h', 's', 'e']);
    r2.close();
  });

  it('writes once the buffer holds bufferBytes', () => {
    const file = join(dir, 'run.jsonl');
    const session = createSession({ slices: [Notes, Count] });
    const recorder = flightRecorder(session, { file, bufferBytes: 1 });
    session.dispatch(Noted({ text: 'a' }));
    expect(records(file).map((r) => r.k)).toEqual(['h', 's', 'e']);
    recorder.close();
  });

  it('is closed by session.dispose(), which flushes what was buffered', () => {
    const file = join(dir, 'run.jsonl');
    const session = createSession({ slices: [Notes, Count] });
    const recorder = flightRecorder(session, { file, fsync: 'batch' });
    session.dispatch(Noted({ text: 'a' }));
    session.dispose();
    expect(recorder.closed).toBe(true);
    expect(records(file).map((r) => r.k)).toEqual(['h', 's', 'e']);
    recorder.close(); // idempotent
  });

  it('stops recording after close()', () => {
    const file = join(dir, 'run.jsonl');
    const session = createSession({ slices: [Notes, Count] });
    const recorder = flightRecorder(session, { file });
    recorder.close();
    session.dispatch(Noted({ text: 'a' }));
    recorder.flush();
    expect(records(file).map((r) => r.k)).toEqual(['h', 's']);
    expect(recorder.recorded).toBe(0);
  });

  it.each([
    ['snapshotEvery 0', { snapshotEvery: 0 }, /snapshotEvery must be an integer ≥ 1/],
    ['snapshotEvery 1.5', { snapshotEvery: 1.5 }, /snapshotEvery must be an integer ≥ 1/],
    ['an unknown fsync', { fsync: 'sometimes' as 'never' }, /fsync must be 'always', 'batch' or 'never'/],
    ['an empty label', { label: '' }, /label must be a string of 1 to 200 characters/],
    ['a label over 200 characters', { label: 'x'.repeat(201) }, /label must be a string of 1 to 200 characters/],
  ])('rejects %s', (_label, extra, message) => {
    const session = createSession({ slices: [Notes] });
    expect(() => flightRecorder(session, { file: join(dir, 'x.jsonl'), ...extra })).toThrow(FlightRecorderError);
    expect(() => flightRecorder(session, { file: join(dir, 'x.jsonl'), ...extra })).toThrow(message);
  });

  it('rejects a file it cannot create, and a disposed session', () => {
    const session = createSession({ slices: [Notes] });
    expect(() => flightRecorder(session, { file: join(dir, 'missing', 'x.jsonl') })).toThrow(expect.objectContaining({ code: 'FLIGHT_RECORDER' }));
    session.dispose();
    expect(() => flightRecorder(session, { file: join(dir, 'x.jsonl') })).toThrow(/the session is disposed/);
  });

  it('reports a failed write on errors$ and stops; the session goes on', () => {
    const file = join(dir, 'run.jsonl');
    const session = createSession({ slices: [Notes, Count] });
    const errors: RxSliceError[] = [];
    session.errors$.subscribe((e) => errors.push(e));
    const recorder = flightRecorder(session, { file, fsync: 'always' });
    disk.full = true;
    try {
      session.dispatch(Noted({ text: 'a' }));
    } finally {
      disk.full = false;
    }
    expect(recorder.closed).toBe(true);
    expect(errors.map((e) => isRxSliceError(e) && e.code)).toEqual(['FLIGHT_RECORDER']);
    expect(errors[0]?.message).toMatch(/ENOSPC.*recording stopped/);
    session.dispatch(Noted({ text: 'b' }));
    expect(session.read(Count)).toEqual([2]);
    expect(records(file).map((r) => r.k)).toEqual(['h', 's']);
  });

  it('fails at once when it cannot write its first lines', () => {
    const session = createSession({ slices: [Notes, Count] });
    disk.full = true;
    try {
      expect(() => flightRecorder(session, { file: join(dir, 'run.jsonl') })).toThrow(/cannot write its first lines \(ENOSPC/);
    } finally {
      disk.full = false;
    }
  });
});

describe('flight recorder snapshots', () => {
  it('writes each snapshot as JSON.stringify(snapshot) would once folded onto the one before, reusing the text of unchanged items', async () => {
    const { mkdtempSync, readFileSync, rmSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const { createSession } = await import('../../src/index');
    const { flightRecorder } = await import('../../src/jsonl/index');
    const { Notes, NoteAdded, Counter, CounterBumped } = await import('../fixtures');
    const dir = mkdtempSync(join(tmpdir(), 'rxslice-rec-snap-'));
    try {
      const file = join(dir, 'r.jsonl');
      // A clock that stands still: the recorder's snapshots and the ones taken here share their `at`.
      const { VirtualTimeScheduler } = await import('rxjs');
      const session = createSession({ slices: [Notes, Counter], scheduler: new VirtualTimeScheduler() });
      const recorder = flightRecorder(session, { file, snapshotEvery: 3 });
      const expected: unknown[] = [JSON.parse(JSON.stringify(session.snapshot({ includeLogs: true })))];
      for (let i = 1; i <= 9; i++) {
        session.dispatch(i % 2 === 0 ? CounterBumped({ by: i }) : NoteAdded({ id: i, text: `note ${i} ✓ "quoted"` }));
        if (i % 3 === 0) expected.push(JSON.parse(JSON.stringify(session.snapshot({ includeLogs: true }))));
      }
      recorder.close();
      type Line = { base?: number; snapshot: { id?: string; slices: Record<string, { runs?: number[]; items: unknown[] }> } };
      const lines = readFileSync(file, 'utf8')
        .split('\n')
        .filter((l) => l.includes('"k":"s"'))
        .map((l) => (JSON.parse(l) as { rec: Line }).rec);
      // Every snapshot after the first is relative to the one before: a slice's run of kept items, then its new ones.
      expect(lines.map((l) => l.base)).toEqual([undefined, 0, 3, 6]);
      expect(lines[3]?.snapshot.slices['notes']).toMatchObject({ runs: [0, 3, 2], items: [{ id: 7 }, { id: 9 }] });
      const snapshots: Line['snapshot'][] = [];
      for (const { snapshot } of lines) {
        const slices = Object.fromEntries(
          Object.entries(snapshot.slices).map(([name, { runs, ...rest }]) => {
            if (runs === undefined) return [name, rest];
            const before = snapshots.at(-1)?.slices[name]?.items ?? [];
            const items: unknown[] = [];
            let added = 0;
            for (let r = 0; r < runs.length; r += 3) {
              const [from, keep, add] = runs.slice(r, r + 3) as [number, number, number];
              items.push(...before.slice(from, from + keep), ...rest.items.slice(added, added + add));
              added += add;
            }
            return [name, { ...rest, items }];
          }),
        );
        snapshots.push({ ...snapshot, slices });
      }
      const strip = (s: any) => ({ ...s, id: undefined, parents: undefined });
      expect(snapshots.map(strip)).toEqual(expected.map(strip));
      session.dispose();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
