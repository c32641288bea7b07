import type { SliceDef } from '../slices/reducer';
import type { HeldJournal, SliceStorage, StorageFactory } from '../storage/slice-storage';
import type { StorageLockedError } from './directory-lock';
import type { CorruptStorageError } from './journal-format';
import type { JsonlRecovery, JsonlRecoveryMode } from './journal-recovery';
import { JsonlJournal } from './jsonl-journal';
import type { JsonlFsync, JsonlOptions } from './jsonl-options';
import { linkJournals } from '../session/journal-layer';

/** A storage factory writing every slice it makes to one journal in `dir` (see {@link jsonl}). */
export interface JsonlStorageFactory extends StorageFactory {
  /** What the last open recovered (undefined before the directory was first opened: by `openJournal` or a first slice). */
  readonly recovery: JsonlRecovery | undefined;
  /** The open journal (undefined when closed). @internal */
  readonly journal: JsonlJournal | undefined;
  /** Flushes, closes and unlocks (the session's `dispose()` does it when it disposes every slice). Idempotent. */
  close(): void;
  /**
   * Opens the directory now (lock, base file, journal), before any slice is made, and keeps it
   * open until the hold is released: `createSession` calls it, so the session continues after
   * the journal's last `seq` even when no slice of the directory exists yet, and records the
   * `seq` of events that stored nothing. @throws as the first slice's open would.
   */
  readonly openJournal: () => HeldJournal;
}

/**
 * Durable slice storage: one append-only JSONL journal in `options.dir` for every slice made
 * by this factory, with the items kept in memory. Each committed event that changed at least
 * one of its slices appends ONE record (CRC32, the slices' ops and schema versions) before the
 * change becomes visible, so after a crash at any instant the directory reopens at the state
 * after a prefix of committed events. An event that changed nothing stored (no stored slice
 * listens to it, or only memory slices changed) appends a seq-only record (`"slices":{}`), so
 * a reopened session never numbers an event with a `seq` given out before (one `write` per such
 * event; see docs/guide/storage.md for its cost). Opening (synchronous, when the session is created, through
 * `openJournal`, before any slice is made) takes an inter-process lock, reads the base file and
 * the journal, checks CRCs and seq continuity, migrates items of older schema versions
 * (`migrateItems`) and applies `recovery`; the session continues numbering after the recovered
 * `seq`, also when its only slices on this storage are made later (a statechart's, the sagas').
 *
 * @param options `dir`; `fsync` (default `'batch'`, see {@link JsonlFsync}); `recovery`
 * (default `'tolerate-torn-tail'`, see {@link JsonlRecoveryMode}); `stale` (lock, ms).
 * @returns A factory for `createSession({ storage })`, for every slice or per policy.
 * @throws {@link StorageLockedError} (on open) when another live writer holds the directory;
 * {@link CorruptStorageError} when damage is found that `recovery` may not skip;
 * `SliceVersionError`/`MigrationError` when stored items cannot be migrated.
 * A failed write or fsync later makes the session throw `StorageFailedError` (fatal).
 * @remarks Costs: an event appends one line (O(its ops)); `replace` writes the whole new
 * content, `updateAt` only the item it swaps; when the journal grows past `compactBytes` and twice the last base, the next
 * commit first compacts (writes the live state, O(items)). After a reopen, items brought in by
 * `replace` or `restore` carry that record's time (a time window sees them as of then), not
 * the times they had before; as in a live `replace`, an item identical (`===`, so a primitive)
 * to the one at its index keeps that one's time. `dispose()` of the session
 * flushes, closes and unlocks.
 * @example
 * ```ts
 * const session = createSession({ slices: [Plan, Messages], storage: jsonl({ dir: '.agent/session', fsync: 'always' }) });
 * session.dispatch(StepAdded({ step: 'a' })); // one line in .agent/session/journal-0.jsonl, fsync'ed
 * session.dispose();                          // reopen: the same state, seq continues
 * ```
 */
export function jsonl(options: JsonlOptions): JsonlStorageFactory {
  // The journal runtime of the stores that take this factory (docs/SIZE.md).
  linkJournals();
  let journal: JsonlJournal | undefined;
  let recovery: JsonlRecovery | undefined;
  /** The open journal, opened (locked, read) now if it is not. */
  const opened = (): JsonlJournal => {
    if (journal !== undefined) return journal;
    let made: JsonlJournal | undefined;
    const onClose = (): void => {
      if (made !== undefined && journal === made) journal = undefined;
    };
    made = new JsonlJournal(options.dir, options, onClose);
    journal = made;
    recovery = made.recovery;
    options.onRecovery?.(made.recovery);
    return made;
  };
  const factory = (<TItem>(slice: SliceDef<string, TItem>): SliceStorage<TItem> => opened().open(slice)) as JsonlStorageFactory;
  const openJournal = (): HeldJournal => {
    const held = opened();
    held.hold();
    let released = false;
    return {
      journal: held,
      release() {
        if (released) return;
        released = true;
        held.detach();
      },
    };
  };
  Object.defineProperties(factory, {
    recovery: { get: () => recovery },
    journal: { get: () => journal },
    close: { value: () => journal?.close() },
    openJournal: { value: openJournal },
  });
  return factory;
}
