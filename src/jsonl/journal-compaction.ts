import { closeSync, fsyncSync, openSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { encodeBase } from './journal-format';
import type { JsonlJournal } from './jsonl-journal';
import { fsyncDirectory } from './snapshot-file';
import { StorageIOError } from './storage-io-error';

/**
 * @internal Compacts `journal`: writes the committed state of every slice as
 * `base-<lastSeq>.json` (temp + fsync + rename + directory fsync), starts
 * `journal-<lastSeq>.jsonl`, then removes the old pair. A crash at any instant leaves either the
 * old pair (the new base was not renamed yet) or the new base, whose journal is empty or absent:
 * the same state either way. Updates the journal's `baseSeq`, `fd`, `journalBytes` and
 * `baseBytes` as it goes; slices not open yet are written as read (their base and `tail` records).
 * Nothing to do when no record came since the base.
 * @throws {@link StorageIOError} (made the journal's fatal failure through `journal.fail`) when a
 * write, fsync, rename or removal failed.
 * @example
 * ```ts
 * compactJournal(journal); // base-42.json + an empty journal-42.jsonl replace the old pair
 * ```
 */
export function compactJournal(journal: JsonlJournal): void {
  // Nothing since the base (the new pair would have the old pair's names: removing the old
  // pair would remove it).
  if (journal.lastSeq === journal.baseSeq) return;
  const parts: string[] = [];
  for (const [name, storage] of journal.storages) {
    const c = storage.inner.content;
    parts.push(`${JSON.stringify(name)}:${JSON.stringify({ v: storage.schemaVersion, items: Array.from(storage.inner.all()), times: c.times.toArray(c.start, c.end), appended: c.appended })}`);
  }
  for (const [name, raw] of journal.raw) {
    parts.push(`${JSON.stringify(name)}:${JSON.stringify({ ...(raw.base ?? { v: 1 }), tail: raw.records })}`);
  }
  const text = encodeBase(journal.lastSeq, `{${parts.join(',')}}`);
  const oldJournal = journal.journalFile;
  const oldBase = join(journal.dir, `base-${journal.baseSeq}.json`);
  const oldBaseSeq = journal.baseSeq;
  const baseFile = join(journal.dir, `base-${journal.lastSeq}.json`);
  try {
    const tmp = `${baseFile}.tmp`;
    const fd = openSync(tmp, 'w');
    try {
      writeSync(fd, text);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, baseFile);
    fsyncDirectory(baseFile);
    journal.baseSeq = journal.lastSeq;
    const fd2 = openSync(journal.journalFile, 'a');
    fsyncDirectory(baseFile);
    closeSync(journal.fd);
    journal.fd = fd2;
    journal.journalBytes = 0;
    journal.baseBytes = Buffer.byteLength(text);
    unlinkSync(oldJournal);
    if (oldBaseSeq > 0) unlinkSync(oldBase);
  } catch (e) {
    throw journal.fail(new StorageIOError(baseFile, 'compaction', e));
  }
}
