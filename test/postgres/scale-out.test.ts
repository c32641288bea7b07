// Issue 35: sessions commit in parallel (the wake-up leaves the write transaction), wake-ups are
// only hints, the cold open streams the log, and a writer whose connection is killed mid-append
// lands every event exactly once when it retries with an idempotency key.
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import { createSharedSession, SeqConflictError, SharedLogError, type SharedSession, type SharedSessionOptions } from '../../src/postgres/index';
import { Counter, CounterBumped, Exploded, NoteAdded, Notes, NotesCleared } from '../fixtures';

const url = inject('databaseUrl');
const prefix = `rxt_scale_${randomUUID().replace(/-/g, '').slice(0, 10)}`;
const channel = `public_${prefix}_events`;
const peersChannel = `public_${prefix}_peers`;
let admin: pg.Pool;
const open: SharedSession[] = [];

beforeAll(() => {
  admin = new pg.Pool({ connectionString: url, max: 1 }); // the file's own queries run one at a time
});

// A test's sessions are disposed when it ends (see shared-session.test.ts: connections must not pile up).
afterEach(async () => {
  await Promise.all(open.splice(0).map((s) => s.dispose()));
});

afterAll(async () => {
  for (const table of ['events', 'sessions', 'snapshots', 'schema_version']) await admin.query(`DROP TABLE IF EXISTS "${prefix}_${table}"`);
  await admin.end();
});

const share = async (sessionId: string, extra: Partial<SharedSessionOptions> = {}): Promise<SharedSession> => {
  const session = await createSharedSession({ slices: [Notes, Counter], sessionId, postgres: { connectionString: url, max: 3 }, tablePrefix: prefix, pollIntervalMs: 100, leaseRetryMs: 50, snapshotEvery: 0, ...extra });
  open.push(session);
  return session;
};

const until = async (check: () => boolean, what: string, ms = 20_000): Promise<void> => {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
};

const stateOf = (s: SharedSession): string => JSON.stringify({ notes: s.read(Notes), counter: s.read(Counter) });

const logIds = async (sessionId: string): Promise<{ seq: number; id: number }[]> => {
  const { rows } = await admin.query<{ seq: string; id: number }>(`SELECT seq, (payload->>'id')::int AS id FROM "${prefix}_events" WHERE session_id = $1 ORDER BY seq`, [sessionId]);
  return rows.map((r) => ({ seq: Number(r.seq), id: r.id }));
};

describe('shared sessions at scale (issue 35)', () => {
  it('the write transaction sends no NOTIFY: the wake-up is a statement of its own, after the commit, and reaches other processes', async () => {
    const id = randomUUID();
    const pool = new pg.Pool({ connectionString: url, max: 3 });
    const statements: string[] = [];
    const query = pool.query.bind(pool) as (...args: unknown[]) => unknown;
    (pool as unknown as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
      const text = args[0];
      statements.push(typeof text === 'string' ? text : String((text as { text?: unknown }).text));
      return query(...args);
    };
    const listener = new pg.Client({ connectionString: url });
    await listener.connect();
    const woken: string[] = [];
    const heard: string[] = [];
    listener.on('notification', (m) => void (m.channel === channel ? woken : heard).push(m.payload ?? ''));
    await listener.query(`LISTEN "${channel}"; LISTEN "${peersChannel}"`);
    const writer = await createSharedSession({ slices: [Notes, Counter], sessionId: id, postgres: { pool }, tablePrefix: prefix, snapshotEvery: 0 });
    try {
      // The listener plays another process that opens the session (a process alone on its session sends no wake-up).
      await listener.query('SELECT pg_notify($1, $2)', [peersChannel, `J${id}`]);
      await until(() => heard.includes(`H${id}`), "the writer's answer to the join");
      await writer.dispatch(NoteAdded({ id: 1, text: 'one' }));
      const appends = statements.filter((s) => s.includes(`INSERT INTO "public"."${prefix}_events"`));
      expect(appends).toHaveLength(1);
      expect(appends[0]).not.toMatch(/notify/i);
      await until(() => woken.includes(id), 'the wake-up');
    } finally {
      await writer.dispose();
      await listener.end();
      await pool.end();
    }
  });

  it('lost and early wake-ups lose no event: a reader that hears none finds every event by polling, in order', async () => {
    const id = randomUUID();
    const writer = await share(id);
    const reader = await share(id, { pollIntervalMs: 50 });
    // Lost: the reader's LISTEN connection is gone for good (no reconnect), so no wake-up reaches it.
    (reader as unknown as { listener: { leave(): void } }).listener.leave();
    // Early: a wake-up for events not committed yet finds nothing new.
    await admin.query('SELECT pg_notify($1, $2)', [channel, id]);
    const seen: number[] = [];
    reader.committed$.subscribe((c) => seen.push(c.seq));
    const commits = await Promise.all(Array.from({ length: 60 }, (_, i) => writer.dispatch(i % 10 === 9 ? CounterBumped({ by: i }) : NoteAdded({ id: i, text: `n${i}` }))));
    await until(() => reader.lastSeq === 60, 'the reader to poll up to seq 60');
    expect(seen).toEqual(commits.map((c) => c.seq).sort((a, b) => a - b));
    expect(seen).toEqual(Array.from({ length: 60 }, (_, i) => i + 1));
    expect(stateOf(reader)).toBe(stateOf(writer));
  });

  it('a cold open without a snapshot (streamed through a cursor, several batches) reaches the same state and seq as the live path', async () => {
    const id = randomUUID();
    const writer = await share(id);
    const live = await share(id);
    const events = Array.from({ length: 11_000 }, (_, i) =>
      i === 4_999 || i === 5_000 ? Exploded({ message: `boom ${i}` }) : i === 7_000 ? NotesCleared() : i % 7 === 0 ? CounterBumped({ by: i }) : NoteAdded({ id: i, text: `note ${i}` }),
    );
    const outcomes = await Promise.allSettled(events.map((e) => writer.dispatch(e)));
    expect(outcomes.filter((o) => o.status === 'rejected')).toHaveLength(2); // the reducers that threw: in the log, changing nothing
    await until(() => live.lastSeq === events.length, 'the live reader');
    const cold = await share(id);
    expect(cold.startup.fromSnapshot).toBeUndefined();
    expect(cold.startup.replayed).toBe(events.length);
    expect(cold.lastSeq).toBe(events.length);
    expect(stateOf(cold)).toBe(stateOf(live));
    expect(stateOf(cold)).toBe(stateOf(writer));
    // And it goes on live from there.
    await writer.dispatch(NoteAdded({ id: -1, text: 'after' }));
    await until(() => cold.lastSeq === events.length + 1, 'the cold-opened process to follow the log');
    expect(stateOf(cold)).toBe(stateOf(writer));
  });

  it('a batch with idempotency keys is one statement: logged keys come back as logged, the rest are appended in call order', async () => {
    const id = randomUUID();
    const pool = new pg.Pool({ connectionString: url, max: 3 });
    const statements: string[] = [];
    const query = pool.query.bind(pool) as (...args: unknown[]) => unknown;
    (pool as unknown as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
      const text = args[0];
      statements.push(typeof text === 'string' ? text : String((text as { text?: unknown }).text));
      return query(...args);
    };
    const writer = await createSharedSession({ slices: [Notes, Counter], sessionId: id, postgres: { pool }, tablePrefix: prefix, snapshotEvery: 0 });
    try {
      const first = await writer.dispatch(NoteAdded({ id: 1, text: 'one' }), { idempotencyKey: 'k-1', meta: { correlationId: 'c-1' } });
      statements.length = 0;
      // One synchronous burst: one statement for the four.
      const burst = [
        writer.dispatch(NoteAdded({ id: 2, text: 'no key' })),
        writer.dispatch(NoteAdded({ id: 1, text: 'one again' }), { idempotencyKey: 'k-1' }),
        writer.dispatch(NoteAdded({ id: 3, text: 'three' }), { idempotencyKey: 'k-3' }),
        writer.dispatch(CounterBumped({ by: 4 })),
      ];
      const [a, b, c, d] = await Promise.all(burst);
      // (Catch-up reads by position may run meanwhile: the lease taken, polling.)
      expect(statements.filter((t) => t.includes(prefix) && !t.startsWith('SELECT seq, at, type, payload, meta FROM'))).toHaveLength(1);
      expect([a?.seq, b?.seq, c?.seq, d?.seq]).toEqual([2, 1, 3, 4]);
      expect([a?.duplicate, b?.duplicate, c?.duplicate, d?.duplicate]).toEqual([false, true, false, false]);
      expect(b).toMatchObject({ at: first.at, event: { payload: { id: 1, text: 'one' } }, meta: { correlationId: 'c-1' } });
      expect((await logIds(id)).map((r) => r.id)).toEqual([1, 2, 3, null]);
      // expectedSeq: a logged key is a duplicate whatever the head; a new key is checked against it.
      await expect(writer.dispatch(NoteAdded({ id: 3, text: 'three' }), { idempotencyKey: 'k-3', expectedSeq: 0 })).resolves.toMatchObject({ seq: 3, duplicate: true });
      await expect(writer.dispatch(NoteAdded({ id: 5, text: 'five' }), { idempotencyKey: 'k-5', expectedSeq: 0 })).rejects.toBeInstanceOf(SeqConflictError);
      await expect(writer.dispatch(NoteAdded({ id: 5, text: 'five' }), { idempotencyKey: 'k-5', expectedSeq: 4 })).resolves.toMatchObject({ seq: 5, duplicate: false });
      expect(writer.read(Notes).map((n) => n.id)).toEqual([1, 2, 3, 5]);
    } finally {
      await writer.dispose();
      await pool.end();
    }
  });

  it("a writer's connection terminated at random points of 1,000 appends: each failure is a SharedLogError, and retried with its idempotencyKey every event lands exactly once", async () => {
    const id = randomUUID();
    const app = `rxt-fault-${randomUUID().slice(0, 8)}`;
    const writer = await share(id, { postgres: { connectionString: `${url}${url.includes('?') ? '&' : '?'}application_name=${app}`, max: 3 } });
    const reader = await share(id);
    let running = true;
    let kills = 0;
    const killer = (async () => {
      while (running) {
        await new Promise((r) => setTimeout(r, 2 + Math.random() * 25));
        const { rows } = await admin.query<{ killed: number }>(
          `SELECT count(pg_terminate_backend(pid))::int AS killed FROM pg_stat_activity WHERE application_name = $1 AND state = 'active' AND query LIKE 'WITH %' AND query LIKE '%INSERT INTO%'`, // the append statement
          [app],
        );
        kills += rows[0]?.killed ?? 0;
      }
    })();
    const failures: unknown[] = [];
    try {
      for (let i = 0; i < 1_000; i++) {
        for (let attempt = 0; ; attempt++) {
          try {
            await writer.dispatch(NoteAdded({ id: i, text: `n${i}` }), { idempotencyKey: `note-${i}` });
            break;
          } catch (error) {
            failures.push(error);
            if (!(error instanceof SharedLogError) || attempt > 50) throw error;
          }
        }
      }
    } finally {
      running = false;
      await killer;
    }
    expect(kills).toBeGreaterThan(0);
    expect(failures.length).toBeGreaterThan(0);
    const log = await logIds(id);
    expect(log.map((r) => r.seq)).toEqual(Array.from({ length: log.length }, (_, i) => i + 1));
    expect(log.map((r) => r.id)).toEqual(Array.from({ length: 1_000 }, (_, i) => i)); // 0 lost, 0 duplicated, in call order
    await until(() => reader.lastSeq === 1_000 && writer.lastSeq === 1_000, 'both processes to reach seq 1,000');
    expect(writer.read(Notes)).toHaveLength(1_000);
    expect(stateOf(reader)).toBe(stateOf(writer));
  }, 120_000);
});
