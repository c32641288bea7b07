// Issue 35, faults at scale: PostgreSQL restarted under 8 writers. The test runs its OWN embedded
// server (as test/postgres/embedded.test.ts does) because it stops and starts it: the suite's
// server (DATABASE_URL or 127.0.0.1:5432) is shared and must never be restarted.
//
// The 8 writers are sessions on 8 separate pools in this process (each with its own LISTEN
// connection, effect lease and append clients), not 8 processes: every one of their connections
// meets the restart on its own, as in 8 processes, while the test sees each rejected dispatch's
// error object itself (its class, not a message printed by a child) and stays light on 2 cores.
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSharedSession, SharedLogError, type SharedSession } from '../../src/postgres/index';
import { NoteAdded, Notes } from '../fixtures';
import { startEmbedded, type EmbeddedServer } from '../../scripts/postgres-server';

const WRITERS = 8;
const PER_WRITER = 120;

let server: EmbeddedServer | undefined;
let unavailable = '';

beforeAll(async () => {
  // A port of its own (another test's server, or anything else, may hold one): three tries.
  const failures: string[] = [];
  for (let attempt = 0; attempt < 3 && server === undefined; attempt++) {
    const port = 55_000 + ((process.pid + attempt * 337) % 1_000);
    try {
      server = await startEmbedded(port);
    } catch (error) {
      failures.push(`port ${port}: ${String(error)}`);
    }
  }
  if (server === undefined) {
    unavailable = `no embedded PostgreSQL server could be started here (${failures.join('; ')})`;
    console.warn(`restart.test.ts skipped: ${unavailable}`);
  }
}, 120_000);

afterAll(async () => {
  await server?.stop();
});

const until = async (check: () => boolean, what: string, ms = 30_000): Promise<void> => {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
};

describe('PostgreSQL restarted under 8 writers (issue 35)', () => {
  it('every acknowledged event is in the log once, seqs gapless; rejections are SharedLogErrors; LISTEN and the lease come back', async (ctx) => {
    if (server === undefined) return ctx.skip(unavailable);
    const url = server.url;
    const id = randomUUID();
    // Polling is off in effect (an hour): after the restart, events of other writers reach a
    // writer only through its LISTEN connection made again, and the catch-up that follows it.
    const writers: SharedSession[] = [];
    for (let w = 0; w < WRITERS; w++) {
      writers.push(await createSharedSession({ slices: [Notes], sessionId: id, postgres: { connectionString: url, max: 3 }, pollIntervalMs: 3_600_000, leaseRetryMs: 100, snapshotEvery: 0 }));
    }
    const acknowledged = new Map<string, number>();
    const failures: unknown[] = [];
    let restarted = false;
    const restart = async (): Promise<void> => {
      await until(() => acknowledged.size >= (WRITERS * PER_WRITER) / 3, 'a third of the appends');
      await server?.restart();
      restarted = true;
    };
    const write = async (w: number): Promise<void> => {
      for (let i = 0; i < PER_WRITER; i++) {
        const key = `w${w}-${i}`;
        for (let attempt = 0; ; attempt++) {
          try {
            const commit = await writers[w]!.dispatch(NoteAdded({ id: w * 1_000 + i, text: key }), { idempotencyKey: key });
            acknowledged.set(key, commit.seq);
            break;
          } catch (error) {
            failures.push(error);
            if (!(error instanceof SharedLogError) || attempt > 500) throw error;
            await new Promise((r) => setTimeout(r, 20));
          }
        }
      }
    };
    try {
      await Promise.all([restart(), ...writers.map((_, w) => write(w))]);
      expect(restarted).toBe(true);
      expect(failures.length).toBeGreaterThan(0);
      for (const failure of failures) expect(failure).toBeInstanceOf(SharedLogError);

      // The audit, from SQL: every acknowledged event once, at the seq its dispatch resolved with.
      const audit = new pg.Client({ connectionString: url });
      await audit.connect();
      const { rows } = await audit.query<{ seq: string; key: string }>(`SELECT seq, idempotency_key AS key FROM rxslice_events WHERE session_id = $1 ORDER BY seq`, [id]);
      await audit.end();
      const seqs = rows.map((r) => Number(r.seq));
      expect(seqs).toEqual(Array.from({ length: WRITERS * PER_WRITER }, (_, i) => i + 1));
      expect(new Set(rows.map((r) => r.key)).size).toBe(rows.length);
      expect(acknowledged.size).toBe(WRITERS * PER_WRITER);
      const logged = new Map(rows.map((r) => [r.key, Number(r.seq)]));
      for (const [key, seq] of acknowledged) expect(logged.get(key), key).toBe(seq);
      // Each writer's events in its call order.
      for (let w = 0; w < WRITERS; w++) {
        const mine = rows.filter((r) => r.key.startsWith(`w${w}-`)).map((r) => Number(r.key.slice(`w${w}-`.length)));
        expect(mine).toEqual(Array.from({ length: PER_WRITER }, (_, i) => i));
      }

      // Every writer reaches the end through wake-ups (LISTEN made again), and one holds the lease.
      await until(() => writers.every((s) => s.lastSeq === WRITERS * PER_WRITER), 'every writer to reach the last seq');
      const state = JSON.stringify(writers[0]!.read(Notes));
      for (const s of writers) expect(JSON.stringify(s.read(Notes))).toBe(state);
      await until(() => writers.filter((s) => s.hasLease).length === 1, 'one writer to hold the lease again');
      // And a new event still reaches every writer without polling.
      await writers[3]!.dispatch(NoteAdded({ id: -1, text: 'after the restart' }));
      await until(() => writers.every((s) => s.lastSeq === WRITERS * PER_WRITER + 1), 'the wake-up of an event after the restart');
    } finally {
      await Promise.all(writers.map((s) => s.dispose()));
    }
  }, 90_000);
});
