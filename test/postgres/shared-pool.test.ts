// Issue 35 / docs/SCALING.md, "Connections": sessions of one process made on one pool share one
// LISTEN connection (per table prefix) and one lease connection, so a process's connections do
// not grow with its sessions. Polling is off in effect (an hour) in these tests: what reaches a
// session came through the shared LISTEN connection (or, for a session object of the same
// session in this process, straight from the writer).
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createSharedSession, type SharedSession } from '../../src/postgres/index';
import { NoteAdded, Notes } from '../fixtures';

const url = inject('databaseUrl');
const prefix = `rxt_pool_${randomUUID().replace(/-/g, '').slice(0, 10)}`;
let admin: pg.Pool;

beforeAll(() => {
  admin = new pg.Pool({ connectionString: url, max: 2 });
});

afterAll(async () => {
  for (const table of ['events', 'sessions', 'snapshots', 'schema_version']) await admin.query(`DROP TABLE IF EXISTS "${prefix}_${table}"`);
  await admin.end();
});

const withApp = (app: string): string => `${url}${url.includes('?') ? '&' : '?'}application_name=${app}`;

const until = async (check: () => boolean, what: string, ms = 20_000): Promise<void> => {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
};

/** The app's backends: all of them, the LISTEN ones (named `<app> (rxslice listen)` by the listener), and the advisory locks they hold (by backend). */
const footprint = async (app: string): Promise<{ connections: number; listening: number; lockHolders: number; locks: number }> => {
  const { rows } = await admin.query<{ connections: number; listening: number; holders: number; locks: number }>(
    `SELECT (SELECT count(*)::int FROM pg_stat_activity WHERE application_name IN ($1, $1 || ' (rxslice listen)')) AS connections,
            (SELECT count(*)::int FROM pg_stat_activity WHERE application_name = $1 || ' (rxslice listen)') AS listening,
            (SELECT count(DISTINCT l.pid)::int FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid WHERE a.application_name IN ($1, $1 || ' (rxslice listen)') AND l.locktype = 'advisory' AND l.granted) AS holders,
            (SELECT count(*)::int FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid WHERE a.application_name IN ($1, $1 || ' (rxslice listen)') AND l.locktype = 'advisory' AND l.granted) AS locks`,
    [app],
  );
  const row = rows[0] as { connections: number; listening: number; holders: number; locks: number };
  return { connections: row.connections, listening: row.listening, lockHolders: row.holders, locks: row.locks };
};

describe('sessions of one process on one pool (issue 35)', () => {
  it('8 session objects on a pool of 4: one LISTEN and one lease connection; every one woken by another process; disposing some keeps the others woken', async () => {
    const app = `rxt-pool-${randomUUID().slice(0, 8)}`;
    const pool = new pg.Pool({ connectionString: withApp(app), max: 4 });
    const writerPool = new pg.Pool({ connectionString: url, max: 4 });
    const ids: string[] = Array.from({ length: 6 }, () => randomUUID());
    // Sessions 0, 6 and 7 are three objects of one session in this process.
    const sessionIds = [...ids, ids[0] as string, ids[0] as string];
    const options = { slices: [Notes], tablePrefix: prefix, pollIntervalMs: 3_600_000, leaseRetryMs: 50, snapshotEvery: 0 };
    const readers: SharedSession[] = [];
    const writers: SharedSession[] = [];
    try {
      for (const sessionId of sessionIds) readers.push(await createSharedSession({ ...options, sessionId, postgres: { pool } }));
      // Another process: its sessions on a pool of their own.
      for (const sessionId of ids) writers.push(await createSharedSession({ ...options, sessionId, postgres: { pool: writerPool } }));
      await until(() => ids.every((id, i) => readers.filter((r) => r.sessionId === id && r.hasLease).length + (writers[i]!.hasLease ? 1 : 0) === 1), 'one lease per session');

      await Promise.all(writers.map((w, i) => w.dispatch(NoteAdded({ id: i, text: `from the other process ${i}` }))));
      await until(() => readers.every((r) => r.lastSeq === 1), 'every reader to be woken');
      const seen = await footprint(app);
      expect(seen.connections).toBeLessThanOrEqual(4);
      expect(seen.listening).toBe(1);
      // Every lease this process holds is on one connection.
      expect(seen.lockHolders).toBe(seen.locks === 0 ? 0 : 1);
      expect(seen.locks).toBe(ids.filter((id) => readers.some((r) => r.sessionId === id && r.hasLease)).length);
      expect(seen.locks).toBeGreaterThan(0);

      // Objects of one session in one process wake each other (the NOTIFY they send comes back
      // on their own connection and is ignored: they are told directly).
      await readers[6]!.dispatch(NoteAdded({ id: 100, text: 'from object 6' }));
      await until(() => readers[0]!.lastSeq === 2 && readers[7]!.lastSeq === 2 && writers[0]!.lastSeq === 2, 'objects 0 and 7, and the other process, to see object 6');

      // Dispose three objects, the lease holders among them: the others keep their wake-ups.
      const holder = readers.find((r) => r.hasLease) as SharedSession;
      const gone = [holder, readers[7] as SharedSession, readers[3] as SharedSession];
      await Promise.all(gone.map((s) => s.dispose()));
      const left = readers.filter((r) => !gone.includes(r));
      const before = new Map(left.map((r) => [r, r.lastSeq]));
      await Promise.all(writers.map((w, i) => w.dispatch(NoteAdded({ id: 200 + i, text: `again ${i}` }))));
      await until(() => left.every((r) => r.lastSeq === (before.get(r) ?? 0) + 1), 'the sessions left to be woken');
      for (const r of left) expect(JSON.stringify(r.read(Notes))).toBe(JSON.stringify(writers[ids.indexOf(r.sessionId)]!.read(Notes)));
      // The disposed holder's lease is taken again, by this process or the other.
      await until(() => [...left, ...writers].filter((s) => s.sessionId === holder.sessionId && s.hasLease).length === 1, 'the lease to be taken again');
      expect((await footprint(app)).listening).toBe(1);
    } finally {
      await Promise.all([...readers, ...writers].map((s) => s.dispose()));
      await pool.end();
      await writerPool.end();
    }
  });

  it('the last session on a pool to be disposed closes the LISTEN and lease connections it shared', async () => {
    const app = `rxt-pool-${randomUUID().slice(0, 8)}`;
    const pool = new pg.Pool({ connectionString: withApp(app), max: 4, idleTimeoutMillis: 60_000 });
    const options = { slices: [Notes], tablePrefix: prefix, leaseRetryMs: 50, snapshotEvery: 0, postgres: { pool } };
    const sessions: SharedSession[] = [];
    try {
      const a = await createSharedSession({ ...options, sessionId: randomUUID() });
      sessions.push(a);
      const b = await createSharedSession({ ...options, sessionId: randomUUID() });
      sessions.push(b);
      await until(() => a.hasLease && b.hasLease, 'both leases');
      await a.dispose();
      const one = await footprint(app);
      expect(one.listening).toBe(1);
      expect(one.locks).toBe(1);
      await b.dispose();
      // Closed, not returned to the pool: no LISTEN and no lock outlives the sessions.
      let none = await footprint(app);
      for (let i = 0; i < 200 && (none.listening > 0 || none.locks > 0); i++) {
        await new Promise((r) => setTimeout(r, 25)); // a closed backend leaves pg_stat_activity shortly after
        none = await footprint(app);
      }
      expect(none).toMatchObject({ listening: 0, locks: 0 });
      expect(pool.totalCount - pool.idleCount).toBe(0);
    } finally {
      await Promise.all(sessions.map((s) => s.dispose()));
      await pool.end();
    }
  });

  it("12 sessions on one pool add one 'error' listener to it, not one each, and the last dispose removes it", async () => {
    const pool = new pg.Pool({ connectionString: url, max: 4 });
    const warnings: string[] = [];
    const onWarning = (w: Error): void => void warnings.push(w.name);
    process.on('warning', onWarning);
    const sessions: SharedSession[] = [];
    try {
      const options = { slices: [Notes], tablePrefix: prefix, leaseRetryMs: 50, snapshotEvery: 0, postgres: { pool } };
      for (let i = 0; i < 12; i++) sessions.push(await createSharedSession({ ...options, sessionId: randomUUID() }));
      expect(pool.listenerCount('error')).toBe(1);
      for (const session of sessions.splice(0, 11)) await session.dispose();
      expect(pool.listenerCount('error')).toBe(1);
      await sessions.pop()!.dispose();
      expect(pool.listenerCount('error')).toBe(0);
      await new Promise((r) => setImmediate(r)); // (node emits 'warning' on a later tick)
      expect(warnings).not.toContain('MaxListenersExceededWarning');
    } finally {
      process.off('warning', onWarning);
      await Promise.all(sessions.map((s) => s.dispose()));
      await pool.end();
    }
  });
});
