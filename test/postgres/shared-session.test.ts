import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { filter, firstValueFrom, map, take, toArray } from 'rxjs';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import { z } from 'zod';
import { append, defineEvent, defineSaga, defineSlice, ofType, runEpic, type RxSliceError } from '../../src/index';
import { assign, defineMachine, installMachine, sessionMachine } from '../../src/machines/index.js';
import { createSharedSession, SeqConflictError, SharedLogGapError, type SharedSession, type SharedSessionOptions } from '../../src/postgres/index';
import { Counter, CounterBumped, Exploded, NoteAdded, Notes } from '../fixtures';

const url = inject('databaseUrl');
const prefix = `rxt_${randomUUID().replace(/-/g, '').slice(0, 12)}`;
let admin: pg.Pool;
const open: SharedSession[] = [];

// The file's own queries: one at a time, beside the open transaction of the slow-writer test.
beforeAll(() => {
  admin = new pg.Pool({ connectionString: url, max: 2 });
});

// Each test's sessions are disposed when it ends, so their pools do not pile up over the file:
// with ~25 tests the file held up to ~90 of PostgreSQL's default 100 connections, and a second
// suite on the same server got "too many clients already". Each session's pool is the smallest a
// shared session runs with (3: LISTEN, the effect lease, one to append and read); no test here
// measures concurrency.
afterEach(async () => {
  await Promise.all(open.splice(0).map((s) => s.dispose()));
});

afterAll(async () => {
  for (const table of ['events', 'sessions', 'snapshots', 'schema_version']) await admin.query(`DROP TABLE IF EXISTS "${prefix}_${table}"`);
  await admin.end();
});

const share = async (sessionId: string, extra: Partial<SharedSessionOptions> = {}): Promise<SharedSession> => {
  const session = await createSharedSession({
    slices: [Notes, Counter],
    sessionId,
    postgres: { connectionString: url, max: 3 },
    tablePrefix: prefix,
    pollIntervalMs: 100,
    leaseRetryMs: 50,
    ...extra,
  });
  open.push(session);
  return session;
};

const until = async (check: () => boolean, what: string, ms = 15_000): Promise<void> => {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
};

const logRows = async (sessionId: string): Promise<{ seq: number; type: string; payload: unknown }[]> => {
  const { rows } = await admin.query<{ seq: string; type: string; payload: unknown }>(`SELECT seq, type, payload FROM "${prefix}_events" WHERE session_id = $1 ORDER BY seq`, [sessionId]);
  return rows.map((r) => ({ seq: Number(r.seq), type: r.type, payload: r.payload }));
};

const stateOf = (s: SharedSession): string => JSON.stringify({ notes: s.read(Notes), counter: s.read(Counter) });

describe('createSharedSession', () => {
  it('appends, resolves once reduced here, and every process reduces every event in log order', async () => {
    const id = randomUUID();
    const a = await share(id);
    const b = await share(id);
    const seen: number[] = [];
    b.committed$.subscribe((c) => seen.push(c.seq));
    const committed = await a.dispatch(NoteAdded({ id: 1, text: 'one' }));
    expect(committed.seq).toBe(1);
    expect(committed.changed).toEqual(['notes', 'counter']);
    expect(committed.duplicate).toBe(false);
    expect(a.read(Notes)).toEqual([{ id: 1, text: 'one' }]); // read-your-writes
    await b.dispatch(NoteAdded({ id: 2, text: 'two' }));
    await until(() => a.lastSeq === 2, 'a to see b');
    expect(a.read(Notes).map((n) => n.id)).toEqual([1, 2]);
    expect(stateOf(a)).toBe(stateOf(b));
    expect(seen).toEqual([1, 2]);
    expect((await logRows(id)).map((r) => r.seq)).toEqual([1, 2]);
  });

  it('events that change no slice keep their seq: a process started after them numbers the next event above them (issue 37)', async () => {
    const id = randomUUID();
    const Pinged = defineEvent('test/pinged', z.object({}));
    const a = await share(id, { events: [Pinged] });
    await a.dispatch(NoteAdded({ id: 1, text: 'one' }));
    expect((await a.dispatch(Pinged({}))).changed).toEqual([]);
    await a.dispatch(Pinged({}));
    await a.dispose();
    const b = await share(id, { events: [Pinged] });
    expect(b.lastSeq).toBe(3);
    expect((await b.dispatch(Pinged({}))).seq).toBe(4);
    expect((await logRows(id)).map((r) => r.seq)).toEqual([1, 2, 3, 4]);
  });

  it('concurrent writers in two processes: one gapless order, each writer in its own call order, same state everywhere', async () => {
    const id = randomUUID();
    const a = await share(id);
    const b = await share(id);
    const n = 200;
    const both = await Promise.all([
      Promise.all(Array.from({ length: n }, (_, i) => a.dispatch(NoteAdded({ id: i, text: 'a' })))),
      Promise.all(Array.from({ length: n }, (_, i) => b.dispatch(CounterBumped({ by: i })))),
    ]);
    const seqs = both.flat().map((c) => c.seq);
    expect(new Set(seqs).size).toBe(2 * n);
    expect(Math.max(...seqs)).toBe(2 * n);
    // Per process, the log keeps the order of the dispatch calls.
    for (const list of both) expect(list.map((c) => c.seq)).toEqual([...list.map((c) => c.seq)].sort((x, y) => x - y));
    await until(() => a.lastSeq === 2 * n && b.lastSeq === 2 * n, 'both to catch up');
    expect(stateOf(a)).toBe(stateOf(b));
    expect(a.read(Counter)).toEqual([{ n: n + (n * (n - 1)) / 2 }]);
    expect((await logRows(id)).map((r) => r.seq)).toEqual(Array.from({ length: 2 * n }, (_, i) => i + 1));
  });

  it('a dispatch resolves with its commit even when a read (polling, NOTIFY) applied the event before the append answered', async () => {
    const id = randomUUID();
    const a = await share(id, { pollIntervalMs: 1 });
    const b = await share(id, { pollIntervalMs: 1 });
    for (let i = 1; i <= 150; i++) {
      const [x, y] = await Promise.all([a.dispatch(NoteAdded({ id: i, text: 'a' })), b.dispatch(CounterBumped({ by: 1 }))]);
      expect(x.changed).toEqual(['notes', 'counter']);
      expect(y.changed).toEqual(['counter']);
      expect(a.read(Notes).at(-1)?.id).toBe(i);
    }
    // b's last event may still be on its way to a: catchUp reads to the log's end.
    expect(await a.catchUp()).toBe(300);
    expect(await b.catchUp()).toBe(300);
    expect(stateOf(a)).toBe(stateOf(b));
  });

  it('expectedSeq: a conflict appends nothing and names the seq the session is at', async () => {
    const id = randomUUID();
    const a = await share(id);
    const b = await share(id);
    const first = await a.dispatch(NoteAdded({ id: 1, text: 'x' }), { expectedSeq: 0 });
    await b.dispatch(NoteAdded({ id: 2, text: 'y' }));
    const error = await a.dispatch(NoteAdded({ id: 3, text: 'stale' }), { expectedSeq: first.seq }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SeqConflictError);
    expect(error).toMatchObject({ code: 'SEQ_CONFLICT', expectedSeq: 1, actualSeq: 2 });
    expect((await logRows(id)).length).toBe(2);
    await a.catchUp();
    const ok = await a.dispatch(NoteAdded({ id: 3, text: 'fresh' }), { expectedSeq: a.lastSeq });
    expect(ok.seq).toBe(3);
  });

  it('idempotencyKey: a retried dispatch resolves with the logged event and appends nothing', async () => {
    const id = randomUUID();
    const a = await share(id);
    const b = await share(id);
    const first = await a.dispatch(NoteAdded({ id: 7, text: 'once' }), { idempotencyKey: 'k-7' });
    const again = await b.dispatch(NoteAdded({ id: 7, text: 'once' }), { idempotencyKey: 'k-7' });
    expect(again).toMatchObject({ seq: first.seq, duplicate: true, event: { type: 'notes/added', payload: { id: 7, text: 'once' } } });
    const [x, y] = await Promise.all([a.dispatch(NoteAdded({ id: 8, text: 'race' }), { idempotencyKey: 'k-8' }), b.dispatch(NoteAdded({ id: 8, text: 'race' }), { idempotencyKey: 'k-8' })]);
    expect(x.seq).toBe(y.seq);
    expect([x.duplicate, y.duplicate].sort()).toEqual([false, true]);
    expect((await logRows(id)).length).toBe(2);
  });

  it('an invalid event rejects and appends nothing; a throwing reducer changes nothing in any process', async () => {
    const id = randomUUID();
    const a = await share(id);
    const b = await share(id);
    const errors: RxSliceError[] = [];
    b.errors$.subscribe((e) => errors.push(e));
    await expect(a.dispatch(NoteAdded({ id: 'x' as unknown as number, text: 'bad' }))).rejects.toMatchObject({ code: 'INVALID_EVENT' });
    expect(await logRows(id)).toEqual([]);
    await a.dispatch(NoteAdded({ id: 1, text: 'ok' }));
    await expect(a.dispatch(Exploded({ message: 'boom' }))).rejects.toMatchObject({ code: 'REDUCER_FAILED' });
    const after = await a.dispatch(NoteAdded({ id: 2, text: 'after' }));
    expect(after.seq).toBe(3);
    await until(() => b.lastSeq === 3, 'b to catch up');
    expect(errors.map((e) => e.code)).toContain('REDUCER_FAILED');
    expect(stateOf(a)).toBe(stateOf(b));
    expect(a.read(Counter)).toEqual([{ n: 2 }]); // the exploded event's +1000 was rolled back with it
  });

  it('restore and transaction are refused on the local view', async () => {
    const a = await share(randomUUID());
    expect(() => a.local.restore(a.snapshot())).toThrow(expect.objectContaining({ code: 'UNSUPPORTED_ON_SHARED_SESSION' }));
    expect(() => a.local.transaction(() => 1)).toThrow(expect.objectContaining({ code: 'UNSUPPORTED_ON_SHARED_SESSION' }));
  });

  it('a new process starts from the newest snapshot and replays only the tail; a bad snapshot falls back to the whole log', async () => {
    const id = randomUUID();
    const a = await share(id, { snapshotEvery: 50 });
    await until(() => a.hasLease, 'the lease');
    for (let i = 0; i < 120; i++) await a.dispatch(NoteAdded({ id: i, text: `n${i}` }));
    await until(() => true, '');
    const { rows } = await admin.query<{ seq: string }>(`SELECT seq FROM "${prefix}_snapshots" WHERE session_id = $1 ORDER BY seq`, [id]);
    expect(rows.map((r) => Number(r.seq))).toEqual([50, 100]);
    const b = await share(id);
    expect(b.startup).toMatchObject({ fromSnapshot: 100, replayed: 20, snapshotError: undefined });
    expect(stateOf(b)).toBe(stateOf(a));
    await admin.query(`UPDATE "${prefix}_snapshots" SET data = '{"format":"nope"' WHERE session_id = $1 AND seq = 100`, [id]);
    const c = await share(id);
    expect(c.startup.fromSnapshot).toBeUndefined();
    expect(c.startup.replayed).toBe(120);
    expect(c.startup.snapshotError?.code).toBe('INVALID_SNAPSHOT');
    expect(stateOf(c)).toBe(stateOf(a));
  });

  it('never passes a hole in the log: it waits there, reports it, and goes on once it fills', async () => {
    const id = randomUUID();
    const a = await share(id);
    const errors: RxSliceError[] = [];
    a.errors$.subscribe((e) => errors.push(e));
    await a.dispatch(NoteAdded({ id: 1, text: 'one' }));
    // Written by hand, around rxslice: seq 3 with no seq 2.
    const row = (seq: number) => admin.query(`INSERT INTO "${prefix}_events" (session_id, seq, at, type, payload, meta) VALUES ($1, $2, 0, 'notes/added', $3, '{}')`, [id, seq, JSON.stringify({ id: seq, text: 'hand' })]);
    await row(3);
    await until(() => errors.some((e) => e instanceof SharedLogGapError), 'the gap report');
    expect(a.lastSeq).toBe(1);
    expect(errors.find((e) => e instanceof SharedLogGapError)).toMatchObject({ afterSeq: 1, nextSeq: 3 });
    await row(2);
    await until(() => a.lastSeq === 3, 'the hole to fill');
    expect(a.read(Notes).map((n) => n.id)).toEqual([1, 2, 3]);
  });

  it('a slow low transaction: events numbered after an open append wait for it, and readers never see them first', async () => {
    const id = randomUUID();
    const a = await share(id);
    const b = await share(id);
    await a.dispatch(NoteAdded({ id: 1, text: 'one' }));
    // Another writer's transaction takes seq 2 and stays open.
    const slow = await admin.connect();
    await slow.query('BEGIN');
    await slow.query(`UPDATE "${prefix}_sessions" SET last_seq = last_seq + 1 WHERE session_id = $1`, [id]);
    await slow.query(`INSERT INTO "${prefix}_events" (session_id, seq, at, type, payload, meta) VALUES ($1, 2, 0, 'notes/added', '{"id":2,"text":"slow"}', '{}')`, [id]);
    const fast = a.dispatch(NoteAdded({ id: 3, text: 'fast' }));
    await new Promise((r) => setTimeout(r, 300));
    await b.catchUp();
    expect(b.lastSeq).toBe(1);
    expect((await logRows(id)).map((r) => r.seq)).toEqual([1]);
    await slow.query('COMMIT');
    slow.release();
    expect((await fast).seq).toBe(3);
    await until(() => b.lastSeq === 3, 'b to see both');
    expect(b.read(Notes).map((n) => n.text)).toEqual(['one', 'slow', 'fast']);
  });

  it('effects run in the one process holding the lease; when it goes, another takes over', async () => {
    const id = randomUUID();
    const bump = (session: Parameters<NonNullable<SharedSessionOptions['onLease']>>[0]) => {
      const handle = runEpic(session, (events$) => events$.pipe(ofType(NoteAdded), map((env) => CounterBumped({ by: env.event.payload.id }))), { name: 'bump' });
      return () => handle.stop();
    };
    const a = await share(id, { onLease: bump });
    await until(() => a.hasLease, 'a to take the lease');
    const b = await share(id, { onLease: bump });
    await new Promise((r) => setTimeout(r, 200));
    expect(b.hasLease).toBe(false);
    await b.dispatch(NoteAdded({ id: 10, text: 'x' }));
    await until(() => b.read(Counter)[0]?.n === 11, 'the effect of the first note');
    await a.dispose();
    await until(() => b.hasLease, 'b to take the lease over');
    await b.dispatch(NoteAdded({ id: 20, text: 'y' }));
    await until(() => b.read(Counter)[0]?.n === 32, 'the effect of the second note');
    await new Promise((r) => setTimeout(r, 200));
    const rows = await logRows(id);
    expect(rows.filter((r) => r.type === 'counter/bumped').map((r) => r.payload)).toEqual([{ by: 10 }, { by: 20 }]);
  });

  it('sagas run in the lease holder and resume from their log in the next one', async () => {
    const id = randomUUID();
    const Ordered = defineEvent('shop/ordered', z.object({ order: z.string() }));
    const calls: string[] = [];
    let release: (() => void) | undefined;
    const Checkout = defineSaga('checkout', { input: z.object({ order: z.string() }), startOn: Ordered })
      .step('reserve', {
        run: (input) =>
          new Promise<string>((resolve) => {
            calls.push(`reserve ${input.order}`);
            release = () => resolve('reserved');
          }),
      })
      .step('charge', { run: async (input) => (calls.push(`charge ${input.order}`), 'charged') });
    const Orders = defineSlice('orders', { policy: 'log', schema: z.object({ order: z.string() }), reducers: ({ on }) => [on(Ordered, (_v, e) => append(e.payload))] });
    const a = await share(id, { slices: [Orders], sagas: [Checkout] });
    await until(() => a.hasLease, 'a to take the lease');
    const b = await share(id, { slices: [Orders], sagas: [Checkout] });
    await b.dispatch(Ordered({ order: 'o-1' }));
    await until(() => calls.length === 1, 'the first step to start in a');
    await until(() => b.read('rxslice/sagas').length === 1, 'b to see the saga as unfinished');
    await a.dispose(); // dies inside step "reserve"
    await until(() => b.hasLease, 'b to take the lease');
    await until(() => calls.length === 2, 'b to resume the step');
    expect(calls).toEqual(['reserve o-1', 'reserve o-1']);
    release?.();
    await until(() => b.read('rxslice/sagas').length === 0, 'the saga to finish');
    expect(calls).toEqual(['reserve o-1', 'reserve o-1', 'charge o-1']);
    const types = (await logRows(id)).map((r) => r.type);
    expect(types.filter((t) => t === 'rxslice.saga.completed')).toHaveLength(1);
  });

  it('a statechart installed in every process (install) governs the shared log the same way everywhere', async () => {
    const id = randomUUID();
    const Flow = defineMachine('flow', {
      context: { steps: 0 },
      initial: 'idle',
      states: {
        idle: { on: { 'agent/started': 'working' } },
        working: { on: { 'notes/added': { actions: assign<{ steps: number }>(({ context }) => ({ steps: context.steps + 1 })) }, 'agent/finished': 'done' } },
        done: { type: 'final' },
      },
    });
    const Started = defineEvent('agent/started');
    const Finished = defineEvent('agent/finished');
    const install = (session: Parameters<NonNullable<SharedSessionOptions['install']>>[0]) => void installMachine(session, Flow);
    const a = await share(id, { install, events: [Started, Finished] });
    const b = await share(id, { install, events: [Started, Finished] });
    // Not allowed in 'idle': the event is logged, and every process's machine refuses it alike
    // (as a throwing reducer would): the dispatch rejects and no state changes anywhere.
    await expect(a.dispatch(Finished())).rejects.toMatchObject({ code: 'INVALID_TRANSITION' });
    await a.dispatch(Started());
    await b.dispatch(NoteAdded({ id: 1, text: 'x' }));
    await b.dispatch(NoteAdded({ id: 2, text: 'y' }));
    await a.dispatch(Finished());
    await b.catchUp();
    const machineOf = (s: SharedSession) => JSON.stringify(s.read('machine/flow'));
    expect(machineOf(a)).toBe(machineOf(b));
    expect(sessionMachine(a.local, Flow).matches('done')).toBe(true);
    expect(sessionMachine(b.local, Flow).current.context).toEqual({ steps: 2 });
    expect((await logRows(id)).map((r) => r.type)).toEqual(['agent/finished', 'agent/started', 'notes/added', 'notes/added', 'agent/finished']);
  });

  it('refuses bad options and bad dispatch options with clear errors, appending nothing', async () => {
    const base = { slices: [Notes], postgres: { connectionString: url, max: 2 }, tablePrefix: prefix };
    await expect(createSharedSession({ ...base, sessionId: '' })).rejects.toMatchObject({ code: 'SHARED_LOG_FAILED', message: expect.stringMatching(/sessionId must be a non-empty string/) });
    await expect(createSharedSession({ ...base, sessionId: 's', tablePrefix: 'Bad-Name; DROP' })).rejects.toMatchObject({ code: 'SHARED_LOG_FAILED', message: expect.stringMatching(/tablePrefix must be a lower-case identifier/) });
    await expect(createSharedSession({ ...base, sessionId: 's', middleware: { operators: [] } } as unknown as SharedSessionOptions)).rejects.toMatchObject({ message: expect.stringMatching(/operator middleware is not available/) });
    await expect(createSharedSession({ ...base, sessionId: 's', middleware: { events: [] } } as unknown as SharedSessionOptions)).rejects.toMatchObject({ message: expect.stringMatching(/event middleware is not available/) });
    await expect(createSharedSession({ ...base, sessionId: 's', postgres: { connectionString: 'postgres://nobody@127.0.0.1:1/none' } })).rejects.toMatchObject({ code: 'SHARED_LOG_FAILED', message: expect.stringMatching(/connecting to PostgreSQL failed: connect ECONNREFUSED/) });
    const id = randomUUID();
    const a = await share(id, { events: [defineEvent('free/unchecked', z.unknown())] });
    await expect(a.dispatch(NoteAdded({ id: 1, text: 'x' }), { expectedSeq: -1 })).rejects.toMatchObject({ message: expect.stringMatching(/expectedSeq must be a non-negative integer/) });
    await expect(a.dispatch(NoteAdded({ id: 1, text: 'x' }), { idempotencyKey: '' })).rejects.toMatchObject({ message: expect.stringMatching(/idempotencyKey must be a non-empty string/) });
    await expect(a.dispatch({ type: 'free/unchecked', payload: { big: 1n } })).rejects.toMatchObject({ code: 'INVALID_EVENT', message: expect.stringMatching(/cannot be written as JSON/) });
    await expect(a.dispatch({ type: 'rxslice.session.reset', payload: undefined })).rejects.toMatchObject({ code: 'RESERVED_EVENT_TYPE' });
    expect(await logRows(id)).toEqual([]);
    expect(a.lastSeq).toBe(0);
    await a.dispose();
    await expect(a.dispatch(NoteAdded({ id: 1, text: 'x' }))).rejects.toMatchObject({ code: 'SESSION_DISPOSED' });
  });

  it('sets up the tables once when many processes start at once', async () => {
    const fresh = `rxt_${randomUUID().replace(/-/g, '').slice(0, 12)}`;
    const sessions = await Promise.all(Array.from({ length: 5 }, () => createSharedSession({ slices: [Notes], sessionId: 's', postgres: { connectionString: url, max: 3 }, tablePrefix: fresh })));
    await Promise.all(sessions.map((s) => s.dispose()));
    const { rows } = await admin.query<{ version: number }>(`SELECT version FROM "${fresh}_schema_version"`);
    expect(rows).toEqual([{ version: 1 }]);
    for (const table of ['events', 'sessions', 'snapshots', 'schema_version']) await admin.query(`DROP TABLE IF EXISTS "${fresh}_${table}"`);
  });

  it('reads on after its LISTEN connection is killed (polling, then reconnect and catch-up)', async () => {
    const id = randomUUID();
    const a = await share(id, { pollIntervalMs: 5_000 });
    // b's pool has a name of its own: its LISTEN connection is "<name> (rxslice listen)", found by
    // name whatever it last ran (a wake-up, sent on it after a's first dispatch below).
    const app = `rxt-listen-${randomUUID().slice(0, 8)}`;
    const b = await share(id, { pollIntervalMs: 5_000, postgres: { connectionString: `${url}${url.includes('?') ? '&' : '?'}application_name=${app}`, max: 3 } });
    await a.dispatch(NoteAdded({ id: -1, text: 'before' }));
    await b.dispatch(NoteAdded({ id: -2, text: 'before' })); // b's wake-up runs on its LISTEN connection
    const listen = [`${app} (rxslice listen)`];
    // Its last statement is now the wake-up, not LISTEN (what a search by query text missed).
    for (let i = 0; ; i++) {
      const { rows } = await admin.query<{ query: string }>("SELECT query FROM pg_stat_activity WHERE application_name = $1 AND state = 'idle'", listen);
      if (rows[0]?.query.includes('pg_notify') === true) break;
      if (i > 200) throw new Error(`b's LISTEN connection did not go idle after its wake-up: ${JSON.stringify(rows)}`);
      await new Promise((r) => setTimeout(r, 10));
    }
    const lost = firstValueFrom(b.errors$.pipe(filter((e) => e.code === 'SHARED_LOG_FAILED'), take(1)));
    const { rows } = await admin.query<{ killed: number }>('SELECT count(pg_terminate_backend(pid))::int AS killed FROM pg_stat_activity WHERE application_name = $1', listen);
    expect(rows[0]?.killed).toBe(1);
    expect((await lost).message).toMatch(/LISTEN connection was lost/);
    const values = firstValueFrom(b.slice(Notes).all$.pipe(filter((n) => n.length === 5), take(1), toArray()));
    for (let i = 0; i < 3; i++) await a.dispatch(NoteAdded({ id: i, text: 'after' }));
    expect((await values)[0]?.map((n) => n.id)).toEqual([-1, -2, 0, 1, 2]);
  });
});
