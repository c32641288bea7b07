/**
 * Workload 14 — a log shared by two processes on one PostgreSQL server: this process appends
 * 2,000 events (8 appends in flight at a time), a reader process follows the log. Headline: µs
 * per appended event (the inverse of appends per second); columns: appends per second, and the
 * commit-to-visible latency in the reader process (p50, p99: from the moment the writer's append
 * resolved to the moment the reader saw the event; both read Date.now() on one machine).
 *
 * - rxslice: `createSharedSession` on both sides; `dispatch` per event (waiting dispatches of one
 *   process share one statement); the reader is woken by LISTEN/NOTIFY.
 * - Emmett: `getPostgreSQLEventStore(url).appendToStream(stream, [event])` per event; the
 *   reader is `store.consumer()` with a reactor (`eachMessage`), pulling at its default
 *   frequency (50 ms, batches of 100). Emmett has no NOTIFY wake-up.
 * - plain: the same log by hand, one event per statement: the position taken from a head row
 *   under its lock, the insert and `pg_notify` in one statement; the reader LISTENs and selects
 *   by position. The floor: no validation, no batching, no state. (A bigserial position read with
 *   `pos > last` loses events here: concurrent appends commit out of position order.)
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import pg from 'pg';
import { check, type Measurement } from '../lib/measure';
import { percentile } from '../lib/stats';
import type { Workload } from './workload';
import { Sent, SentLog } from './w14-events';
import { createSharedSession } from '../../src/postgres/index';

export const SHARED_EVENTS = 2_000;
const IN_FLIGHT = 8;
let lastConflicts = 0;
const url = process.env['DATABASE_URL'] ?? 'postgres://postgres@127.0.0.1:5432/test';

interface Writer {
  append(id: number): Promise<void>;
  close(): Promise<void>;
}

async function startReader(kind: string, name: string): Promise<{ result: Promise<number[]>; kill(): void }> {
  // The bench worker runs bundled from bench/.tmp: find the reader from the repository root.
  const file = join(process.cwd(), 'bench', 'workloads', 'w14-reader.ts');
  const proc = spawn(process.execPath, ['--import', 'tsx', file, kind, url, name, String(SHARED_EVENTS)], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  proc.stderr.setEncoding('utf8').on('data', (c: string) => (err += c));
  let ready!: () => void;
  const isReady = new Promise<void>((r) => (ready = r));
  const result = new Promise<number[]>((resolve, reject) => {
    proc.stdout.setEncoding('utf8').on('data', (c: string) => {
      out += c;
      if (out.startsWith('ready\n')) ready();
    });
    proc.on('close', (code) => {
      const lines = out.trim().split('\n');
      if (code !== 0 || lines.length < 2) reject(new Error(`reader ${kind} exited ${code}: ${err.slice(-2000)}`));
      else resolve(JSON.parse(lines[1] as string) as number[]);
    });
  });
  await Promise.race([isReady, result.then(() => undefined)]);
  return { result, kill: () => proc.kill('SIGKILL') };
}

async function writer(kind: string, name: string): Promise<Writer> {
  if (kind === 'rxslice') {
    const session = await createSharedSession({ slices: [SentLog], sessionId: name, postgres: { connectionString: url }, tablePrefix: 'bench14', validation: 'off', freeze: false, snapshotEvery: 0 });
    return { append: async (id) => void (await session.dispatch(Sent({ id }))), close: () => session.dispose() };
  }
  if (kind === 'emmett') {
    const { getPostgreSQLEventStore } = await import('@event-driven-io/emmett-postgresql');
    const store = getPostgreSQLEventStore(url);
    // Its schema is made on first use; then start from empty tables, so that the reader (which
    // follows Emmett's global log from the beginning) reads only this run's events.
    await store.appendToStream(`${name}-setup`, [{ type: 'bench/setup', data: {} }]);
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    await admin.query('TRUNCATE emt_messages, emt_streams, emt_processors');
    await admin.end();
    let conflicts = 0;
    return {
      // Concurrent appends to one Emmett stream can fail with ExpectedVersionConflictError; retried
      // as Emmett's command handlers do. The cap is w14-writer's (1,000): with 8 appends in flight
      // on one stream an append lost 100 races in a row on a loaded machine (the run of 21:16 on
      // 2026-11-28 failed with "Expected version NO_CONCURRENCY_CHECK does not match current -1").
      append: async (id) => {
        for (let attempt = 0; ; attempt++) {
          try {
            await store.appendToStream(name, [{ type: 'bench/sent', data: { id } }]);
            return;
          } catch (error) {
            if ((error as { errorCode?: number }).errorCode !== 412 || attempt >= 1000) throw error;
            conflicts++;
          }
        }
      },
      close: async () => {
        lastConflicts = conflicts;
        await store.close();
      },
    };
  }
  const pool = new pg.Pool({ connectionString: url, max: IN_FLIGHT });
  await pool.query('CREATE TABLE IF NOT EXISTS bench14_plain_heads (name text PRIMARY KEY, last bigint NOT NULL)');
  await pool.query('CREATE TABLE IF NOT EXISTS bench14_plain_log (name text NOT NULL, pos bigint NOT NULL, id int NOT NULL, PRIMARY KEY (name, pos))');
  await pool.query('INSERT INTO bench14_plain_heads (name, last) VALUES ($1, 0)', [name]);
  return {
    // The same guarantee as rxslice's log (positions handed out under the head row's lock, so they commit in order), one event per statement.
    append: async (id) =>
      void (await pool.query(
        `WITH h AS (UPDATE bench14_plain_heads SET last = last + 1 WHERE name = $1 RETURNING last), i AS (INSERT INTO bench14_plain_log (name, pos, id) SELECT $1, h.last, $2 FROM h) SELECT pg_notify('bench14_plain', $1) FROM h`,
        [name, id],
      )),
    close: () => pool.end(),
  };
}

const run =
  (kind: string) =>
  async (): Promise<Measurement> => {
    const name = `bench-${randomUUID()}`;
    // The writer first: it sets up the tables (Emmett migrates its schema on first use).
    const w = await writer(kind, name);
    const reader = await startReader(kind, name);
    const committed = new Array<number>(SHARED_EVENTS).fill(0);
    const t0 = performance.now();
    let next = 0;
    await Promise.all(
      Array.from({ length: IN_FLIGHT }, async () => {
        while (next < SHARED_EVENTS) {
          const id = next++;
          await w.append(id);
          committed[id] = Date.now();
        }
      }),
    );
    const ms = performance.now() - t0;
    const visible = await reader.result;
    await w.close();
    const latencies = visible.map((v, i) => v - (committed[i] as number));
    check(latencies.every((l) => Number.isFinite(l)) && visible.every((v) => v > 0), 'the reader saw every event');
    latencies.sort((a, b) => a - b);
    return {
      value: (ms * 1000) / SHARED_EVENTS,
      extra: { ops: SHARED_EVENTS, conflicts: kind === 'emmett' ? lastConflicts : 0, perSecond: (SHARED_EVENTS * 1000) / ms, p50: Math.max(0, percentile(latencies, 0.5)), p99: Math.max(0, percentile(latencies, 0.99)) },
    };
  };

export const sharedLogWorkload: Workload = {
  id: 'shared-log',
  number: '14',
  title: `Shared log on PostgreSQL: ${SHARED_EVENTS.toLocaleString('en')} appends (${IN_FLIGHT} in flight), followed by a reader process`,
  unit: 'µs/event',
  maxRounds: 3,
  columns: [
    { key: 'perSecond', label: 'appends/s', digits: 0 },
    { key: 'p50', label: 'visible p50 (ms)', digits: 1 },
    { key: 'p99', label: 'visible p99 (ms)', digits: 1 },
    { key: 'conflicts', label: 'retried conflicts', digits: 0 },
  ],
  notes: [
    'Same server (127.0.0.1:5432 or DATABASE_URL), same event count and concurrency for each contender; the reader is another Node process.',
    'rxslice: `createSharedSession` writer and reader; `dispatch` resolves once the event is committed and reduced in the writer; waiting dispatches share one statement (group commit); the reader wakes on LISTEN/NOTIFY and reads by position.',
    'Emmett 0.42: `appendToStream(stream, [event])` per event, retried on `ExpectedVersionConflictError` (concurrent appends to one stream conflict; the column counts retries); reader: `store.consumer()` + `reactor({ eachMessage })`, pulling every 50 ms (its default; it has no NOTIFY wake-up).',
    'plain loop: the same log written by hand, one statement per event (position from a head row under its lock, insert, pg_notify); no validation, batching or state. (A first version used a bigserial position read with `pos > last`: its reader lost events, because concurrent appends commit out of position order.)',
  ],
  contenders: { plain: run('plain'), rxslice: run('rxslice'), emmett: run('emmett') },
};
