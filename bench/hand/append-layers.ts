/**
 * Where the writer process's CPU per awaited append goes (issue 35): `DATABASE_URL=… npx tsx
 * bench/hand/append-layers.ts [count=2000] [rounds=3]`. One process, one session, awaited appends
 * one at a time, through each layer in turn (alternating, `rounds` times): `session` (a shared
 * session's `dispatch`), `log` (its event log's `append` of one prepared event, no session
 * around it), `pool` (the log's append statement as `pool.query` text), `client` (the same on one
 * checked-out client, no pool), `prepared` (the same as a named prepared statement on that
 * client). Prints appends/s and the process's CPU (user / system µs per append).
 */
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { createSharedSession } from '../../src/postgres/index';
import { PostgresEventLog } from '../../src/postgres/event-log';
import { sharedTables } from '../../src/postgres/schema';
import { Sent, SentLog } from '../workloads/w14-events';

const url = process.env['DATABASE_URL'] ?? '';
if (url === '') throw new Error('set DATABASE_URL to a server of your own');
const count = Number(process.argv[2] ?? 2000);
const rounds = Number(process.argv[3] ?? 3);
const prefix = 'bench14s';
const t = sharedTables(prefix);

const statement = (id: string): string =>
  `WITH s AS (UPDATE ${t.sessions} SET last_seq = last_seq + $2::int WHERE session_id = $1 AND ($3::bigint IS NULL OR last_seq = $3::bigint) RETURNING last_seq - $2::int AS base),
   ins AS (INSERT INTO ${t.events} (session_id, seq, at, type, payload, meta, idempotency_key)
     SELECT $1, s.base + e.ord, e.at, e.type, e.payload, e.meta, e.key FROM s, unnest($4::float8[], $5::text[], $6::json[], $7::json[], $8::text[]) WITH ORDINALITY AS e(at, type, payload, meta, key, ord) RETURNING 1)
   SELECT s.base, (SELECT count(*) FROM ins) AS n FROM s ${id}`;
const values = (sessionId: string, i: number): unknown[] => [sessionId, 1, null, [Date.now()], ['bench/sent'], [`{"id":${i}}`], ['{}'], [null]];

async function measure(name: string, run: (i: number) => Promise<unknown>): Promise<void> {
  await run(-1);
  const cpu = process.cpuUsage();
  const start = performance.now();
  for (let i = 0; i < count; i++) await run(i);
  const ms = performance.now() - start;
  const used = process.cpuUsage(cpu);
  console.log(`${name.padEnd(9)} ${((count * 1000) / ms).toFixed(0).padStart(5)} appends/s  CPU ${(used.user / count).toFixed(0)} user + ${(used.system / count).toFixed(0)} system µs per append`);
}

async function main(): Promise<void> {
  const base = `layers-${randomUUID()}`;
  const session = await createSharedSession({ slices: [SentLog], sessionId: base, postgres: { connectionString: url, max: 4 }, tablePrefix: prefix, validation: 'off', freeze: false, snapshotEvery: 0 });
  const pool = new pg.Pool({ connectionString: url, max: 4 });
  const others = ['log', 'pool', 'client', 'prepared'].map((k) => `${base}-${k}`);
  for (const id of others) await pool.query(`INSERT INTO ${t.sessions} (session_id) VALUES ($1) ON CONFLICT DO NOTHING`, [id]);
  const log = new PostgresEventLog(pool, t, others[0] as string);
  const client = await pool.connect();
  for (let r = 0; r < rounds; r++) {
    await measure('session', (i) => session.dispatch(Sent({ id: i })));
    await measure('log', (i) => log.append([{ at: Date.now(), type: 'bench/sent', payload: `{"id":${i}}`, meta: '{}', idempotencyKey: null }]));
    await measure('pool', (i) => pool.query(statement(''), values(others[1] as string, i)));
    await measure('client', (i) => client.query(statement(''), values(others[2] as string, i)));
    await measure('prepared', (i) => client.query({ name: 'layers_append', text: statement(''), values: values(others[3] as string, i) }));
  }
  client.release();
  await session.dispose();
  await pool.end();
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
