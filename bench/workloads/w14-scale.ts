/**
 * Workloads 14p (sessions in parallel), 14o (one session, many writers) and 14g (group commit):
 * writer processes on one PostgreSQL server, started together, timed from the first start to the
 * last end; the database is audited afterwards (every event once, positions without a gap) and
 * `pg_locks` is sampled every 5 ms meanwhile.
 *
 * - rxslice: `createSharedSession` per process; `dispatch` per event (14g: 16 dispatches fired
 *   at once, then awaited together: they share one statement).
 * - Emmett 0.42: `appendToStream(stream, events)`; 14g appends the 16 events as one batch.
 *   Appends to one stream from several processes conflict (`ExpectedVersionConflictError`) and are
 *   retried (column "retried conflicts").
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import pg from 'pg';
import { check, type Measurement } from '../lib/measure';
import { percentile } from '../lib/stats';
import type { Workload } from './workload';

const url = process.env['DATABASE_URL'] ?? 'postgres://postgres@127.0.0.1:5432/test';
const TABLE_PREFIX = 'bench14s';

/** One run's shape: processes, and whether they share one session/stream. */
interface Shape {
  readonly processes: number;
  readonly shared: boolean;
  /** Events each process appends. */
  readonly count: number;
  /** Appends (or bursts) in flight per process. */
  readonly inFlight: number;
  /** Events per burst (1: one awaited dispatch at a time per lane). */
  readonly burst: number;
  /** Sessions (streams) per process, each with `count` events and `inFlight` lanes (default 1). */
  readonly sessions?: number;
}

interface WriterReport {
  start: number;
  end: number;
  latencies: number[];
  conflicts: number;
}

function startWriter(kind: string, stream: string, shape: Shape): { ready: Promise<void>; go(): void; result: Promise<WriterReport>; proc: ChildProcess } {
  const file = join(process.cwd(), 'bench', 'workloads', 'w14-writer.ts');
  const proc = spawn(process.execPath, ['--import', 'tsx', file, kind, url, stream, String(shape.count), String(shape.inFlight), String(shape.burst), TABLE_PREFIX, String(shape.sessions ?? 1)], { stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  proc.stderr?.setEncoding('utf8').on('data', (c: string) => (err += c));
  let ready!: () => void;
  const isReady = new Promise<void>((r) => (ready = r));
  const result = new Promise<WriterReport>((resolve, reject) => {
    proc.stdout?.setEncoding('utf8').on('data', (c: string) => {
      out += c;
      if (out.startsWith('ready\n')) ready();
    });
    proc.on('close', (code) => {
      const lines = out.trim().split('\n');
      if (code !== 0 || lines.length < 2) reject(new Error(`writer ${kind} exited ${code}: ${err.slice(-2000)}`));
      else resolve(JSON.parse(lines[1] as string) as WriterReport);
    });
  });
  return { ready: Promise.race([isReady, result.then(() => undefined)]), go: () => proc.stdin?.write('go\n'), result, proc };
}

/** Samples `pg_locks` every 5 ms: waiting lock requests, split into the database-wide notify lock and the rest. */
function sampleLocks(pool: pg.Pool): { stop(): Promise<{ samples: number; notifyWaits: number; otherWaits: number }> } {
  let running = true;
  let samples = 0;
  let notifyWaits = 0;
  let otherWaits = 0;
  const loop = (async () => {
    while (running) {
      const { rows } = await pool.query<{ notify: number; other: number }>(
        `SELECT count(*) FILTER (WHERE locktype = 'object' AND classid = 'pg_database'::regclass AND objid = 0)::int AS notify,
                count(*) FILTER (WHERE NOT (locktype = 'object' AND classid = 'pg_database'::regclass AND objid = 0))::int AS other
         FROM pg_locks WHERE NOT granted`,
      );
      samples++;
      notifyWaits += rows[0]?.notify ?? 0;
      otherWaits += rows[0]?.other ?? 0;
      await new Promise((r) => setTimeout(r, 5));
    }
  })();
  return {
    stop: async () => {
      running = false;
      await loop;
      return { samples, notifyWaits, otherWaits };
    },
  };
}

/** Every event of `stream` exactly once (ids 0..expected-1 plus the warm-up's -1 per process), positions 1..n without a gap. */
async function audit(pool: pg.Pool, kind: string, stream: string, shape: Shape, streams: number): Promise<void> {
  const ids =
    kind === 'rxslice'
      ? await pool.query<{ id: number; pos: string }>(`SELECT (payload->>'id')::int AS id, seq AS pos FROM "${TABLE_PREFIX}_events" WHERE session_id = $1 ORDER BY seq`, [stream])
      : await pool.query<{ id: number; pos: string }>(`SELECT COALESCE(message_data->>'id', message_data->'data'->>'id')::int AS id, stream_position AS pos FROM emt_messages WHERE stream_id = $1 ORDER BY stream_position`, [stream]);
  const perStream = shape.shared ? shape.count * shape.processes + shape.processes : shape.count + 1;
  check(ids.rows.length === perStream, `${stream}: ${ids.rows.length} events in the log, expected ${perStream}`);
  check(
    ids.rows.every((r, i) => Number(r.pos) === i + 1),
    `${stream}: positions have a gap`,
  );
  const counts = new Map<number, number>();
  for (const r of ids.rows) counts.set(r.id, (counts.get(r.id) ?? 0) + 1);
  const copies = shape.shared ? shape.processes : 1;
  for (let id = 0; id < shape.count; id++) check(counts.get(id) === copies, `${stream}: event ${id} logged ${counts.get(id) ?? 0} times, expected ${copies}`);
  void streams;
}

const run =
  (kind: string, shape: Shape) =>
  async (): Promise<Measurement> => {
    const admin = new pg.Pool({ connectionString: url, max: 2 });
    try {
      if ((shape.sessions ?? 1) > 1) {
        // Each writer process holds up to 10 clients (its pool); a server with fewer slots refuses
        // them mid-run ("too many clients already"): say so before starting instead.
        const { rows } = await admin.query<{ max_connections: string }>('SHOW max_connections');
        const needed = shape.processes * 10 + 10;
        const allowed = Number(rows[0]?.max_connections);
        if (allowed < needed) throw new Error(`needs a server with max_connections >= ${needed} (${shape.processes} processes × a pool of 10, plus the audit's); ${url.replace(/\/\/[^@]*@/, '//')} allows ${allowed}: point DATABASE_URL at a server started with more (docs/SCALING.md)`);
      }
      const base = `bench-${randomUUID()}`;
      const streams = Array.from({ length: shape.processes }, (_, i) => (shape.shared ? base : `${base}-${i}`));
      // The first writer alone sets up the tables (rxslice) or schema (Emmett), then the rest start.
      const first = startWriter(kind, streams[0] as string, shape);
      await first.ready;
      const writers = [first, ...streams.slice(1).map((s) => startWriter(kind, s, shape))];
      await Promise.all(writers.map((w) => w.ready));
      const locks = sampleLocks(admin);
      for (const w of writers) w.go();
      const reports = await Promise.all(writers.map((w) => w.result));
      const lockStats = await locks.stop();
      const perProcess = shape.sessions ?? 1;
      const audited = perProcess === 1 ? [...new Set(streams)] : streams.flatMap((s) => Array.from({ length: perProcess }, (_, j) => `${s}-${j}`));
      for (const s of audited) await audit(admin, kind, s, shape, streams.length);
      const start = Math.min(...reports.map((r) => r.start));
      const end = Math.max(...reports.map((r) => r.end));
      const events = shape.processes * (shape.sessions ?? 1) * shape.count;
      const latencies = reports.flatMap((r) => r.latencies).sort((a, b) => a - b);
      const perSecond = (events * 1000) / (end - start);
      return {
        value: (1e6 / perSecond),
        extra: {
          ops: events,
          perSecond,
          p50: percentile(latencies, 0.5),
          p99: percentile(latencies, 0.99),
          conflicts: reports.reduce((n, r) => n + r.conflicts, 0),
          notifyWaits: lockStats.notifyWaits / Math.max(1, lockStats.samples),
          otherWaits: lockStats.otherWaits / Math.max(1, lockStats.samples),
        },
      };
    } finally {
      await admin.end();
    }
  };

const COLUMNS = [
  { key: 'perSecond', label: 'appends/s (all processes)', digits: 0 },
  { key: 'p50', label: 'append p50 (ms)', digits: 2 },
  { key: 'p99', label: 'append p99 (ms)', digits: 2 },
  { key: 'conflicts', label: 'retried conflicts', digits: 0 },
  { key: 'notifyWaits', label: 'waiting on notify lock (mean per pg_locks sample)', digits: 2 },
  { key: 'otherWaits', label: 'other lock waits (mean per sample)', digits: 2 },
] as const;

const NOTES = [
  'Writer processes (`node --import tsx bench/workloads/w14-writer.ts`) start together on one PostgreSQL server; each first makes one untimed append (warm-up). Timed from the first process start to the last end; afterwards the log is audited in SQL (every event exactly once, positions 1..n without a gap).',
  '`pg_locks` is sampled every 5 ms during the run: waiting requests on the database-wide notify lock (`object`, `pg_database`, objid 0: taken by a committing transaction that called NOTIFY) and all other waiting requests (row locks of one session/stream, transaction ids).',
  'rxslice: `createSharedSession` (pool max 4), `dispatch` per event; the wake-up NOTIFY is sent after the commit (not in the write transaction). Emmett 0.42: `getPostgreSQLEventStore(url).appendToStream`.',
];

/** Workload 14p at `n` processes: each process on its own session / stream, one awaited append at a time. */
const sessionsWorkload = (n: number): Workload => {
  const shape: Shape = { processes: n, shared: false, count: 400, inFlight: 1, burst: 1 };
  return {
    id: `shared-sessions-${n}`,
    number: `14p${n}`,
    title: `${n} process${n === 1 ? '' : 'es'}, each on its own session (stream): ${shape.count} awaited appends each`,
    unit: 'µs/event',
    maxRounds: 5,
    columns: COLUMNS,
    notes: NOTES,
    contenders: { rxslice: run('rxslice', shape), emmett: run('emmett', shape) },
  };
};

// (One export per workload: the bench runner bundles each workload on its own.)
export const sessions1Workload = sessionsWorkload(1);
export const sessions2Workload = sessionsWorkload(2);
export const sessions4Workload = sessionsWorkload(4);
export const sessions8Workload = sessionsWorkload(8);
export const sessions16Workload = sessionsWorkload(16);

const oneSession: Shape = { processes: 4, shared: true, count: 500, inFlight: 4, burst: 1 };
/** Workload 14o: 4 processes × 4 appends in flight on one session / stream. */
export const oneSessionWorkload: Workload = {
  id: 'shared-one-session',
  number: '14o',
  title: `One session, many writers: ${oneSession.processes} processes × ${oneSession.inFlight} awaited appends in flight, ${oneSession.count} events each`,
  unit: 'µs/event',
  maxRounds: 5,
  columns: COLUMNS,
  notes: [...NOTES, 'rxslice numbers events under the session row lock (no conflicts); the awaiting dispatches of a process share one statement. Emmett: concurrent appends to the stream conflict and are retried.'],
  contenders: { rxslice: run('rxslice', oneSession), emmett: run('emmett', oneSession) },
};

const groupCommit: Shape = { processes: 4, shared: true, count: 1_600, inFlight: 1, burst: 16 };
/** Workload 14g: 4 processes on one session, each firing 16 un-awaited dispatches at once. */
export const groupCommitWorkload: Workload = {
  id: 'shared-group-commit',
  number: '14g',
  title: `Group commit: ${groupCommit.processes} processes on one session (stream), each firing ${groupCommit.burst} dispatches at once, then awaiting them (${groupCommit.count} events each)`,
  unit: 'µs/event',
  maxRounds: 5,
  columns: COLUMNS,
  notes: [
    ...NOTES,
    `rxslice: ${groupCommit.burst} \`dispatch\` calls made synchronously, not awaited one by one (they share one statement), then awaited together; latency is per burst. Emmett: one \`appendToStream\` of a ${groupCommit.burst}-event batch per burst, retried on conflict.`,
  ],
  contenders: { rxslice: run('rxslice', groupCommit), emmett: run('emmett', groupCommit) },
};

const manySessions: Shape = { processes: 16, shared: false, count: 40, inFlight: 1, burst: 1, sessions: 16 };
/** Workload 14p16x16: 16 processes × 16 sessions (streams) each, one awaited append at a time per session. */
export const sessions16x16Workload: Workload = {
  id: 'shared-sessions-16x16',
  number: '14p16x16',
  title: `16 processes × 16 sessions (streams) each, on one pool of 10 clients per process: ${manySessions.count} awaited appends per session`,
  unit: 'µs/event',
  maxRounds: 3,
  columns: COLUMNS,
  notes: [
    ...NOTES,
    'Each process opens its 16 sessions on one `pg.Pool` of 10 clients (`postgres: { pool }`): they share one LISTEN and one lease connection, so the process holds at most 10 connections (Emmett: one event store per process, pg\'s default pool of 10). 256 lanes in all, one awaited append at a time per session; every one of the 256 logs is audited.',
  ],
  contenders: { rxslice: run('rxslice', manySessions), emmett: run('emmett', manySessions) },
};
