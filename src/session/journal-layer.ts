import type { Envelope } from '../events/envelope';
import type { HeldJournal, StorageFactory, StorageJournal, StorageTransaction, StoredSliceDef } from '../storage/slice-storage';
import { StorageAheadError } from './errors';
import { JOURNAL_LAYER, linkLayer, type JournalLayer, type SessionJournals } from './feature-layers';
import type { SessionCore } from './session-core';
import type { SliceRecord } from './slice-handle';

/**
 * The durable journals of one session (docs/SIZE.md, "durable journals as a layer"): made by the
 * core with its first journal (a durable factory's `openJournal`, or a slice storage's `journal`),
 * so a memory-only store has none and its bundle need not hold this code.
 */
class Journals implements SessionJournals {
  readonly list: StorageJournal[] = [];
  /** The open transactions handed to the journals' `commit` (see {@link write}). */
  private readonly txs: StorageTransaction<any>[] = [];
  /** The journals opened with the session (`StorageFactory.openJournal`), released by {@link release}. */
  private readonly held: HeldJournal[] = [];
  /**
   * The `seq` the session continued from when it opened (its journals' last): while `seq` is
   * still this, no event was numbered in this session, and a journal found later that is ahead
   * may move it forward (see {@link add}).
   */
  private openedSeq = 0;
  /** Journals holding their records for the outermost {@link batch} (undefined outside one). */
  private deferred: StorageJournal[] | undefined = undefined;

  constructor(private readonly core: SessionCore) {}

  hold(factory: StorageFactory): void {
    const held = (factory.openJournal as () => HeldJournal)();
    this.held.push(held);
    this.add(held.journal, undefined);
  }

  /**
   * Takes a journal into the session: the session continues after the journal's last `seq` when
   * it is ahead and no `seq` was numbered since the session opened (a library slice made before
   * the first dispatch); ahead of seqs already numbered, it is refused with
   * {@link StorageAheadError}, never numbered over. Failures the journal finds outside a commit
   * are fatal too. `sliceName`: the slice whose storage brought it (undefined: a journal the
   * session opened itself).
   */
  add(journal: StorageJournal, sliceName: string | undefined): void {
    if (this.list.includes(journal)) return;
    const core = this.core;
    if (journal.lastSeq > core.seq) {
      if (core.seq !== this.openedSeq) throw new StorageAheadError(sliceName ?? '(session)', journal.lastSeq, core.seq);
      core.seq = core.lastSeq = this.openedSeq = journal.lastSeq;
    }
    journal.setReporter((error) => core.failStorage(0, error));
    this.list.push(journal);
  }

  /**
   * Writes the record of `env` to every journal whose slices it changed, or, when it changed none
   * of them, its seq-only record to the first journal: every committed `seq` is stored before
   * anyone is told of it, so a reopen never numbers an event with it again (DESIGN "Envelope").
   * On failure rolls back and fails the session.
   */
  write(env: Envelope): boolean {
    const journals = this.list;
    if (journals.length === 0) return true;
    const core = this.core;
    try {
      if (core.storageFailure !== undefined) throw core.storageFailure;
      let wrote = false;
      const count = core.pendingCount;
      if (count !== 0) {
        // One list per session, refilled per event (the journals read it during `commit` only).
        const txs = this.txs;
        if (txs.length !== count) txs.length = count;
        for (let i = 0; i < count; i++) txs[i] = (core.pending[i] as SliceRecord<any>).tx as StorageTransaction<any>;
        for (let i = 0; i < journals.length; i++) if ((journals[i] as StorageJournal).commit(env.seq, env.at, txs)) wrote = true;
      }
      if (!wrote) (journals[0] as StorageJournal).commitSeq(env.seq, env.at);
      return true;
    } catch (cause) {
      core.rollbackPending();
      const error = core.failStorage(env.seq, cause);
      if (env.seq === core.awaitedSeq) core.awaitedFailure = error;
      return false;
    }
  }

  batch<TResult>(fn: () => TResult): TResult {
    const core = this.core;
    if (this.deferred !== undefined) return fn();
    const deferred: StorageJournal[] = [];
    for (const journal of this.list) {
      if (journal.deferWrites === undefined || journal.writeDeferred === undefined) continue;
      journal.deferWrites();
      deferred.push(journal);
    }
    if (deferred.length === 0) return core.batch(fn);
    this.deferred = deferred;
    return core.batch(() => {
      try {
        return fn();
      } finally {
        this.deferred = undefined;
        this.writeDeferred(deferred);
      }
    });
  }

  /** Writes what `journals` held; on a failure, fails the session and drops the held commits (none was stored for sure). */
  private writeDeferred(journals: readonly StorageJournal[]): void {
    let failure: unknown;
    for (const journal of journals) {
      try {
        journal.writeDeferred?.();
      } catch (cause) {
        failure ??= cause;
      }
    }
    if (failure === undefined) return;
    const core = this.core;
    core.held.length = 0;
    throw core.failStorage(core.lastSeq, failure);
  }

  peek(def: StoredSliceDef<unknown>): readonly unknown[] | undefined {
    for (const journal of this.list) {
      const items = journal.peek?.(def);
      if (items !== undefined) return items;
    }
    return undefined;
  }

  release(): void {
    for (const held of this.held.splice(0)) {
      try {
        held.release();
      } catch {
        // closing is best effort here: what was written is durable already
      }
    }
  }
}

/** The durable journal runtime, as {@link linkJournals} links it. */
const journals: JournalLayer = { open: (core) => new Journals(core) };

/** @internal Links the durable journal runtime for the stores of this program (`jsonl()` and `createSession` call it). */
export function linkJournals(): void {
  linkLayer(JOURNAL_LAYER, journals);
}

/**
 * Returns `factory` as given, and links the durable journal runtime into the program (once, at
 * the first call): what a store needs before it takes a storage factory with `openJournal`, or
 * whose storages have a `journal` (a durable backend of your own; see {@link StorageJournal}).
 * A memory-only store never has a journal, so its bundle holds that runtime (the journal writes
 * before each commit, their `seq` adoption on reopen, the durable batch) only when the app calls
 * this; `jsonl()` and `createSession` link it themselves.
 *
 * @param factory - The storage factory (see {@link StorageFactory}); not copied nor checked here.
 * @returns `factory`, for `createStore({ storage })` or `createSession({ storage })`.
 * @example
 * ```ts
 * const store = createStore({ slices: [Messages], storage: defineDurableStorage(myJournaledStorage) });
 * // Without defineDurableStorage (and without jsonl() or createSession in the program), the store
 * // refuses a storage with a journal with a TypeError that names it, before it opens anything.
 * ```
 */
export function defineDurableStorage<TFactory extends StorageFactory>(factory: TFactory): TFactory {
  linkJournals();
  return factory;
}
