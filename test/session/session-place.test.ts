import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { lastValueFrom, NEVER, of } from 'rxjs';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { append, createSession, defineChannel, defineEvent, defineSaga, defineSlice, memory, StorageAheadError, type StorageFactory } from '../../src/index';
import { defineMachine } from '../../src/machines/index.js';
import { jsonl } from '../../src/jsonl/index';

// DESIGN "Seams and scale": a reopened session knows its place from everything stored (ordinary
// slices, library slices made later, the journal itself), and a session with no ordinary slice is
// a normal session. Before issue 37 the seq came only from journals of slices made at creation.

const roots: string[] = [];
const freshDir = (): string => {
  const d = mkdtempSync(join(tmpdir(), 'rxslice-place-'));
  roots.push(d);
  return d;
};
afterEach(() => {
  for (const d of roots.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** Every record's seq in the journal of `dir` (no compaction in these tests: one segment). */
const journalSeqs = (dir: string): number[] =>
  readFileSync(join(dir, 'journal-0.jsonl'), 'utf8')
    .trimEnd()
    .split('\n')
    .map((line) => (JSON.parse(line) as { rec: { seq: number } }).rec.seq);

const Door = defineMachine('door', { initial: 'a', states: { a: { on: { 'door/pushed': 'b' } }, b: { on: { 'door/pushed': 'a' } } } });

describe('a durable session with no JSONL slice at creation knows its place', () => {
  it('saga-only: the reopened session continues after the journal, the resumed saga is stored as done', async () => {
    const dir = freshDir();
    let crash = true;
    const Deploy = defineSaga('deploy', { input: z.object({ app: z.string() }) })
      .step('create', { run: (input) => of({ vm: `vm-${input.app}` }) })
      .step('ship', { run: () => (crash ? NEVER : of({ url: 'https://web.example' })) });
    const first = createSession({ slices: [], sagas: [Deploy], storage: jsonl({ dir, fsync: 'never' }) });
    first.runSaga(Deploy, { app: 'web' }, { sagaId: 'd1' }).subscribe();
    const numbered = first.lastSeq;
    first.dispose(); // mid-saga: 'ship' is in flight
    const stored = journalSeqs(dir).at(-1) as number;
    // Every seq the session numbered is in the journal (the last saga event stored nothing).
    expect(stored).toBe(numbered);

    crash = false;
    const second = createSession({ slices: [], sagas: [Deploy], storage: jsonl({ dir, fsync: 'never' }) });
    expect(second.lastSeq).toBe(stored);
    const [resumed] = second.resumeSagas();
    expect(resumed?.sagaId).toBe('d1');
    const result = await lastValueFrom(resumed!.result$);
    expect(result).toMatchObject({ ship: { url: 'https://web.example' } });
    const done = second.lastSeq;
    expect(done).toBeGreaterThan(stored);
    second.dispose();

    const third = createSession({ slices: [], sagas: [Deploy], storage: jsonl({ dir, fsync: 'never' }) });
    expect(third.lastSeq).toBe(done);
    expect(third.resumeSagas()).toEqual([]);
    third.dispose();
    const seqs = journalSeqs(dir);
    expect(seqs).toEqual([...seqs].sort((x, y) => x - y));
    expect(new Set(seqs).size).toBe(seqs.length);
  });

  it('statechart-only: install, one dispatch, reopen: lastSeq and the machine are back, the next dispatch is stored', () => {
    const dir = freshDir();
    const first = createSession({ slices: [], storage: jsonl({ dir, fsync: 'never' }) });
    first.install(Door);
    first.dispatch({ type: 'door/pushed', payload: undefined });
    first.dispose();

    const second = createSession({ slices: [], storage: jsonl({ dir, fsync: 'never' }) });
    expect(second.lastSeq).toBe(1);
    const door = second.install(Door);
    expect(door.current.configuration).toEqual(['b']);
    expect(second.dispatch({ type: 'door/pushed', payload: undefined }).seq).toBe(2);
    second.dispose();

    const third = createSession({ slices: [], storage: jsonl({ dir, fsync: 'never' }) });
    expect(third.install(Door).current.configuration).toEqual(['a']);
    expect(third.lastSeq).toBe(2);
    third.dispose();
  });

  it('per-policy storage whose only JSONL slice is the machine (made at install time)', () => {
    const dir = freshDir();
    const Pushed = defineEvent('door/pushed', z.undefined());
    const Pushes = defineSlice('pushes', { policy: 'log', reducers: ({ on }) => [on(Pushed, (_v, e) => append(e.type))] });
    // Ordinary slices are logs on memory(); the machine's slice is a state slice, on JSONL.
    const open = () => createSession({ slices: [Pushes], storage: { log: memory(), state: jsonl({ dir, fsync: 'never' }) } });
    const first = open();
    first.install(Door);
    first.dispatch(Pushed(undefined));
    first.dispatch(Pushed(undefined));
    first.dispatch(Pushed(undefined));
    first.dispose();

    const second = open();
    expect(second.lastSeq).toBe(3);
    second.install(Door);
    expect(second.machine(Door).current.configuration).toEqual(['b']);
    expect(second.dispatch(Pushed(undefined)).seq).toBe(4);
    second.dispose();
  });
});

describe('a journal found after the session opened (a factory without openJournal)', () => {
  /** `jsonl()` seen through a plain function: its journal opens only with its first slice. */
  const lateJournal = (dir: string): StorageFactory => {
    const factory = jsonl({ dir, fsync: 'never' });
    return (def) => factory(def);
  };

  it('before any event was numbered, the session continues after it', () => {
    const dir = freshDir();
    const first = createSession({ slices: [], storage: jsonl({ dir, fsync: 'never' }) });
    first.install(Door);
    first.dispatch({ type: 'door/pushed', payload: undefined });
    first.dispatch({ type: 'door/pushed', payload: undefined });
    first.dispose();

    const Chan = defineChannel('door', [defineEvent('door/pushed', z.undefined())]);
    const second = createSession({ slices: [], storage: lateJournal(dir), channels: [Chan] });
    expect(second.lastSeq).toBe(0);
    second.install(Door);
    expect(second.lastSeq).toBe(2);
    // The channel opened at seq 0 does not claim to hold events 1 and 2 of the earlier run.
    expect(second.channel(Chan).bufferedFromSeq).toBe(3);
    expect(second.dispatch({ type: 'door/pushed', payload: undefined }).seq).toBe(3);
    second.dispose();
  });

  it('ahead of seqs already numbered: StorageAheadError, nothing added, no seq reused', () => {
    const dir = freshDir();
    const first = createSession({ slices: [], storage: jsonl({ dir, fsync: 'never' }) });
    first.install(Door);
    for (let i = 0; i < 3; i++) first.dispatch({ type: 'door/pushed', payload: undefined });
    first.dispose();

    const second = createSession({ slices: [], storage: lateJournal(dir), unknownEvents: 'accept' });
    expect(second.dispatch({ type: 'tool/called', payload: {} }).seq).toBe(1);
    let error: unknown;
    try {
      second.install(Door);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(StorageAheadError);
    expect(error).toMatchObject({ code: 'STORAGE_AHEAD', sliceName: 'machine/door', storedSeq: 3, sessionSeq: 1 });
    expect((error as Error).message).toContain('slice "machine/door" holds events up to seq 3');
    // Nothing was added, and the journal was released (another session can open the directory).
    expect(() => second.machine(Door)).toThrow();
    expect(second.dispatch({ type: 'tool/called', payload: {} }).seq).toBe(2);
    const third = createSession({ slices: [], storage: jsonl({ dir, fsync: 'never' }) });
    expect(third.lastSeq).toBe(3);
    third.dispose();
    second.dispose();
  });
});
