import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { freshRxslice, notesApp, type Rx } from './fresh-program';
import type { HeldJournal, StorageFactory, StorageJournal, StorageTransaction } from '../../src/index';

/**
 * Durable journals on a store: the code that writes them (before each commit), adopts their
 * `seq` on reopen and runs the durable batch is a layer that `jsonl()`, `defineDurableStorage`
 * and `createSession` link into the program. A store given a storage with a journal in a program
 * that linked none refuses it (E71) and opens nothing: a journal is never silently skipped.
 * Each test loads rxslice afresh (`vi.resetModules`), as a program that has linked nothing yet.
 */
const loaded = freshRxslice();


/** A journal kept in memory: what it was asked to write, in order; `failAt` makes that seq's write throw. */
class ListJournal implements StorageJournal {
  readonly records: string[] = [];
  failAt = -1;
  reporter: ((error: never) => void) | undefined;
  constructor(public lastSeq = 0) {}
  commit(seq: number, _at: number, txs: readonly StorageTransaction<any>[]): boolean {
    if (seq === this.failAt) throw new Error('disk full');
    this.records.push(`${seq}:${txs.length}`);
    this.lastSeq = seq;
    return true;
  }
  commitSeq(seq: number): void {
    if (seq === this.failAt) throw new Error('disk full');
    this.records.push(`${seq}:seq`);
    this.lastSeq = seq;
  }
  setReporter(report: (error: never) => void): void {
    this.reporter = report;
  }
}

/** Memory storage whose slice storages carry `journal`; counts the storages it made and disposed. */
function journaled(r: Rx, journal: StorageJournal) {
  const counts = { made: 0, disposed: 0 };
  const base = r.memory();
  const factory = ((def) => {
    const storage = base(def);
    counts.made++;
    const dispose = storage.dispose.bind(storage);
    Object.defineProperty(storage, 'journal', { value: journal });
    Object.defineProperty(storage, 'dispose', { value: () => (counts.disposed++, dispose()) });
    return storage;
  }) as StorageFactory;
  return { factory, counts };
}

describe('durable journals as a layer of the store', () => {
  it('a store refuses a storage with a journal in a program that linked no journal runtime, naming defineDurableStorage; nothing stays open', () => {
    const { Notes } = notesApp(loaded.current);
    const journal = new ListJournal();
    const { factory, counts } = journaled(loaded.current, journal);
    let error: unknown;
    try {
      loaded.current.createStore({ slices: [Notes], storage: factory });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(TypeError);
    expect((error as Error).message).toContain('The storage of slice "notes" has a durable journal');
    expect((error as Error).message).toContain('defineDurableStorage(factory)');
    // The storage made for the slice was disposed; the journal was not taken.
    expect(counts).toEqual({ made: 1, disposed: 1 });
    expect(journal.reporter).toBeUndefined();

    // A factory with openJournal: refused before it is called.
    let opened = 0;
    const held = Object.assign(loaded.current.memory(), {
      openJournal: (): HeldJournal => (opened++, { journal: new ListJournal(), release() {} }),
    }) as StorageFactory;
    expect(() => loaded.current.createStore({ slices: [Notes], storage: held })).toThrow(/A storage factory has a durable journal.*defineDurableStorage/);
    expect(opened).toBe(0);
    // A memory store needs no journal runtime.
    const store = loaded.current.createStore({ slices: [Notes] });
    expect(store.dispatch(notesApp(loaded.current).Noted({ text: 'a' })).seq).toBe(1);
  });

  it('a slice added at run time whose storage has a journal is refused the same way; the store goes on', async () => {
    const { Noted, Notes } = notesApp(loaded.current);
    const { SESSION_INTERNALS } = await import('../../src/session/internals');
    const Other = loaded.current.defineSlice('other', { policy: 'log', reducers: ({ on }) => [on(Noted, (_v, e) => loaded.current.append(e.payload.text))] });
    const journal = new ListJournal();
    const { factory, counts } = journaled(loaded.current, journal);
    // The journaled storage serves the log slices; the store starts with none.
    const store = loaded.current.createStore({ slices: [], storage: { log: factory }, events: [Noted] });
    const internals = (store as unknown as Record<symbol, { addSlice(def: unknown): void; hasSlice(name: string): boolean }>)[SESSION_INTERNALS]!;
    expect(() => internals.addSlice(Other)).toThrow(/The storage of slice "other".*defineDurableStorage/);
    expect(counts).toEqual({ made: 1, disposed: 1 });
    expect(internals.hasSlice('other')).toBe(false);
    expect(journal.reporter).toBeUndefined();
    expect(store.dispatch(Noted({ text: 'x' })).seq).toBe(1);
    void Notes;
  });

  it('defineDurableStorage returns the factory as given and links the runtime: each seq is written before it is visible, a reopen continues after it', () => {
    const { Noted, Pinged, Notes } = notesApp(loaded.current);
    const journal = new ListJournal(4);
    const { factory } = journaled(loaded.current, journal);
    expect(loaded.current.defineDurableStorage(factory)).toBe(factory);
    const store = loaded.current.createStore({ slices: [Notes], storage: factory, events: [Pinged] });
    // The journal's place is the store's.
    expect(store.lastSeq).toBe(4);
    const seen: unknown[][] = [];
    store.slice(Notes).all$.subscribe((all) => seen.push([...all, `journal ${journal.records.join(',')}`]));
    store.dispatch(Noted({ text: 'a' }));
    store.dispatch(Pinged({}));
    expect(journal.records).toEqual(['5:1', '6:seq']);
    // Told after the record was written.
    expect(seen.at(-1)).toEqual(['a', 'journal 5:1']);
    // A failed write is fatal: nothing of the event is visible, every later dispatch throws.
    journal.failAt = 7;
    const errors: unknown[] = [];
    store.errors$.subscribe((e) => errors.push(e));
    expect(() => store.dispatch(Noted({ text: 'b' }))).toThrow(loaded.current.StorageFailedError);
    expect(store.slice(Notes).all()).toEqual(['a']);
    expect(errors[0]).toBeInstanceOf(loaded.current.StorageFailedError);
    expect(() => store.dispatch(Noted({ text: 'c' }))).toThrow(loaded.current.StorageFailedError);
  });

  it('jsonl() links it, and createSession does for the stores made after it', async () => {
    const { Noted, Notes } = notesApp(loaded.current);
    const dir = mkdtempSync(join(tmpdir(), 'rxslice-durable-'));
    const store = loaded.current.createStore({ slices: [Notes], storage: (await import('../../src/jsonl/index')).jsonl({ dir, fsync: 'never' }) });
    store.dispatch(Noted({ text: 'a' }));
    store.dispose();

    vi.resetModules();
    const fresh = await import('../../src/index');
    const again = notesApp(fresh);
    const journal = new ListJournal();
    const { factory } = journaled(fresh, journal);
    fresh.createSession({ slices: [] }).dispose();
    const later = fresh.createStore({ slices: [again.Notes], storage: factory });
    later.dispatch(again.Noted({ text: 'b' }));
    expect(journal.records).toEqual(['1:1']);
  });
});
