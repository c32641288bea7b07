import { spawnSync } from 'node:child_process';
import { closeSync, existsSync, mkdtempSync, openSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { createSession } from '../../../src/index';
import { jsonl, type JsonlFsync } from '../../../src/jsonl/index';
import { SESSION_INTERNALS } from '../../../src/session/internals';
import { Added, Total } from './durable-batch-slices';

// `SessionInternals.durableBatch` (issue 36, `rxslice watch` catching up): the journal records of
// the events committed in the batch are written in one go when it ends, before anyone is told.

const roots: string[] = [];
const freshDir = (): string => {
  const d = mkdtempSync(join(tmpdir(), 'rxslice-durable-batch-'));
  roots.push(d);
  return d;
};
afterEach(() => {
  for (const d of roots.splice(0)) rmSync(d, { recursive: true, force: true });
});

const journalOf = (dir: string): string => join(dir, 'journal-0.jsonl');
const seqs = (dir: string): number[] =>
  readFileSync(journalOf(dir), 'utf8')
    .trimEnd()
    .split('\n')
    .map((line) => (JSON.parse(line) as { rec: { seq: number } }).rec.seq);

describe('durableBatch on JSONL storage', () => {
  it.each(['always', 'batch', 'never'] as JsonlFsync[])('holds the records of the batch (fsync %s) until it ends, writes them in order, then tells the subscribers once', (fsync) => {
    const dir = freshDir();
    const session = createSession({ slices: [Total], storage: jsonl({ dir, fsync }) });
    session.dispatch(Added({ by: 1 }));
    const seen: number[] = [];
    const sub = session.slice(Total).latest$.subscribe((n) => seen.push(n ?? -1));
    const before = statSync(journalOf(dir)).size;
    const inside = session[SESSION_INTERNALS].durableBatch(() => {
      for (const by of [10, 20, 30]) session.dispatch(Added({ by }));
      // Committed (the session reads it), not written, nobody told.
      return { size: statSync(journalOf(dir)).size, total: session.slice(Total).latest(), seen: [...seen] };
    });
    expect(inside).toEqual({ size: before, total: 61, seen: [1] });
    expect(seen).toEqual([1, 61]);
    expect(seqs(dir)).toEqual([1, 2, 3, 4]);
    // After the batch each record is written at once again.
    session.dispatch(Added({ by: 100 }));
    expect(seqs(dir)).toEqual([1, 2, 3, 4, 5]);
    sub.unsubscribe();
    session.dispose();
    const reopened = createSession({ slices: [Total], storage: jsonl({ dir }) });
    expect([reopened.lastSeq, reopened.slice(Total).latest()]).toEqual([5, 161]);
    reopened.dispose();
  });

  it('writes what it holds when the batch throws, and a nested batch joins the outer one', () => {
    const dir = freshDir();
    const session = createSession({ slices: [Total], storage: jsonl({ dir }) });
    const internals = session[SESSION_INTERNALS];
    expect(() =>
      internals.durableBatch(() => {
        session.dispatch(Added({ by: 1 }));
        internals.durableBatch(() => session.dispatch(Added({ by: 2 })));
        expect(existsSync(journalOf(dir)) ? statSync(journalOf(dir)).size : 0).toBe(0);
        throw new Error('boom');
      }),
    ).toThrow('boom');
    expect(seqs(dir)).toEqual([1, 2]);
    session.dispose();
  });

  it('a process killed inside the batch loses the records held: the reopened session holds the events before it', () => {
    const dir = freshDir();
    const child = join(dirname(fileURLToPath(import.meta.url)), 'durable-batch-child.ts');
    const run = spawnSync(process.execPath, ['--import', 'tsx', child, dir], { encoding: 'utf8', timeout: 60_000 });
    expect(run.signal).toBe('SIGKILL');
    const reopened = createSession({ slices: [Total], storage: jsonl({ dir }) });
    expect([reopened.lastSeq, reopened.slice(Total).latest()]).toEqual([2, 3]);
    reopened.dispose();
  });

  it.runIf(existsSync('/dev/full'))('a failed write fails the session: durableBatch throws StorageFailedError and tells nobody of the batch', () => {
    const dir = freshDir();
    const storage = jsonl({ dir });
    const session = createSession({ slices: [Total], storage });
    session.dispatch(Added({ by: 1 }));
    const seen: number[] = [];
    const sub = session.slice(Total).latest$.subscribe((n) => seen.push(n ?? -1));
    const journal = storage.journal!;
    expect(() =>
      session[SESSION_INTERNALS].durableBatch(() => {
        session.dispatch(Added({ by: 2 }));
        // Every write of the journal fails from now on (ENOSPC).
        closeSync(journal.fd);
        journal.fd = openSync('/dev/full', 'w');
      }),
    ).toThrow(expect.objectContaining({ code: 'STORAGE_FAILED' }));
    expect(seen).toEqual([1]);
    expect(() => session.dispatch(Added({ by: 3 }))).toThrow(expect.objectContaining({ code: 'STORAGE_FAILED' }));
    sub.unsubscribe();
    session.dispose();
    expect(seqs(dir)).toEqual([1]);
  });
});
