// Issue 35: a process alone on its session sends no wake-up (no NOTIFY per commit for no reader);
// processes that open the session learn of each other on the peers channel and wake each other,
// with no event left for polling to find, also when a join races with commits.
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import { createSharedSession, type SharedSession, type SharedSessionOptions } from '../../src/postgres/index';
import { LogListener } from '../../src/postgres/log-listener';
import { NoteAdded, Notes } from '../fixtures';

const url = inject('databaseUrl');
const prefix = `rxt_peers_${randomUUID().replace(/-/g, '').slice(0, 10)}`;
const channel = `public_${prefix}_events`;
const peersChannel = `public_${prefix}_peers`;
/** Polling never finds anything in these tests: only wake-ups and catch-ups on (re)join do. */
const NO_POLLING = 3_600_000;
let admin: pg.Pool;
const open: SharedSession[] = [];

beforeAll(() => {
  admin = new pg.Pool({ connectionString: url, max: 1 });
});

afterEach(async () => {
  await Promise.all(open.splice(0).map((s) => s.dispose()));
});

afterAll(async () => {
  for (const table of ['events', 'sessions', 'snapshots', 'schema_version']) await admin.query(`DROP TABLE IF EXISTS "${prefix}_${table}"`);
  await admin.end();
});

/** A session object on a pool of its own: to the library, another process. */
const process_ = async (sessionId: string, extra: Partial<SharedSessionOptions> = {}): Promise<SharedSession> => {
  const session = await createSharedSession({ slices: [Notes], sessionId, postgres: { connectionString: url, max: 3 }, tablePrefix: prefix, pollIntervalMs: NO_POLLING, leaseRetryMs: 50, snapshotEvery: 0, ...extra });
  open.push(session);
  return session;
};

const until = async (check: () => boolean, what: string, ms = 20_000): Promise<void> => {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
};

const ids = (s: SharedSession): number[] => s.read(Notes).map((n) => n.id);

describe('wake-ups only where another process reads (issue 35)', () => {
  it('a process alone on its session sends no wake-up; once another opens it, each commit wakes the other, both ways', async () => {
    const id = randomUUID();
    const spy = new pg.Client({ connectionString: url });
    await spy.connect();
    const woken: string[] = [];
    spy.on('notification', (m) => void (m.payload === id && woken.push(m.channel)));
    try {
      await spy.query(`LISTEN "${channel}"`);
      const a = await process_(id);
      for (let i = 0; i < 20; i++) await a.dispatch(NoteAdded({ id: i, text: `alone ${i}` }));
      const b = await process_(id);
      expect(ids(b)).toEqual(Array.from({ length: 20 }, (_, i) => i)); // its catch-up on opening
      // a hears b's join and answers; b hears the answer: from then on they wake each other.
      await a.dispatch(NoteAdded({ id: 20, text: 'shared' }));
      await until(() => b.lastSeq === 21, 'b woken by a');
      await b.dispatch(NoteAdded({ id: 21, text: 'from b' }));
      await until(() => a.lastSeq === 22, 'a woken by b');
      expect(ids(a)).toEqual(ids(b));
      // A query of the spy's returns after every notification committed before it was delivered:
      // a's 20 lone commits sent none. At most one each for seq 21 (a) and 22 (b): a commit made
      // before its process heard of the other sends none, and the other reads it on the answer.
      await spy.query('SELECT 1');
      expect(woken.length).toBeLessThanOrEqual(2);
    } finally {
      await spy.end();
    }
  });

  it('a commit made before its writer heard of a joiner (so it sent no wake-up) reaches the joiner without polling', async () => {
    const id = randomUUID();
    const writer = await process_(id);
    await writer.dispatch(NoteAdded({ id: 0, text: 'alone' }));
    // The writer's LISTEN connection stops reading: it will not hear the join for now.
    const pool = (writer as unknown as { pool: pg.Pool }).pool;
    const listeners = (LogListener as unknown as { byPool: WeakMap<pg.Pool, Map<string, { client: { connection: { stream: { pause(): void; resume(): void } } } }>> }).byPool;
    const stream = listeners.get(pool)?.get(channel)?.client.connection.stream;
    expect(stream).toBeDefined();
    stream?.pause();
    const joiner = await process_(id);
    expect(joiner.lastSeq).toBe(1);
    // Committed after the joiner's catch-up, by a writer that knows no other process: no wake-up.
    await writer.dispatch(NoteAdded({ id: 1, text: 'unheard' }));
    stream?.resume();
    // The writer hears the join now and answers; the answer makes the joiner read on.
    await until(() => joiner.lastSeq === 2, `the joiner to read seq 2 (it is at ${joiner.lastSeq})`, 10_000);
    expect(ids(joiner)).toEqual([0, 1]);
    // The joiner's commits made before it heard the writer are read by the writer the same way.
    await joiner.dispatch(NoteAdded({ id: 2, text: 'from the joiner' }));
    await until(() => writer.lastSeq === 3, 'the writer to see the joiner’s event', 10_000);
  });

  it('a process announces its join and answers the join of another, then wakes it on commit', async () => {
    const id = randomUUID();
    const spy = new pg.Client({ connectionString: url });
    await spy.connect();
    const heard: string[] = [];
    const woken: string[] = [];
    spy.on('notification', (m) => void (m.channel === peersChannel ? heard : woken).push(m.payload ?? ''));
    try {
      await spy.query(`LISTEN "${channel}"; LISTEN "${peersChannel}"`);
      const a = await process_(id);
      await until(() => heard.includes(`J${id}`), 'a to announce its join');
      // The spy plays a process that opened the session: a answers, then wakes it on commit.
      await spy.query('SELECT pg_notify($1, $2)', [peersChannel, `J${id}`]);
      await until(() => heard.includes(`H${id}`), "a's answer");
      await a.dispatch(NoteAdded({ id: 1, text: 'one' }));
      await until(() => woken.includes(id), "a's wake-up");
    } finally {
      await spy.end();
    }
  });
});
