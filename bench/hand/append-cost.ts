/**
 * Where an awaited append spends its time: `DATABASE_URL=… npx tsx bench/hand/append-cost.ts
 * <rxslice|emmett|raw|raw-rxslice> [processes=4] [count=400] [shared=0] [inFlight=1]`.
 *
 * Runs the writer processes of workloads 14p / 14o (bench/workloads/w14-writer.ts) and, during
 * the timed part, samples every 10 ms `pg_stat_activity` (what each other backend of the database
 * is doing: `wait_event_type:wait_event`, or `CPU` when active and not waiting) and the waiting
 * requests of `pg_locks`; reads `pg_stat_statements` (reset at `go`: calls and mean time per
 * statement, per append) and the CPU time (`/proc/<pid>/stat`, user + system) of the writer
 * processes and of every `postgres` process, per append. Needs a server of your own with
 * `shared_preload_libraries=pg_stat_statements` (it resets the server's statement statistics).
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';

const [kind = 'rxslice', processesArg = '4', countArg = '400', sharedArg = '0', inFlightArg = '1'] = process.argv.slice(2);
const url = process.env['DATABASE_URL'];
if (url === undefined) throw new Error('set DATABASE_URL to a server of your own (this script resets pg_stat_statements)');
const processes = Number(processesArg);
const count = Number(countArg);
const shared = sharedArg === '1';
const TICKS = 100; // clock ticks per second (Linux USER_HZ)

/** user + system CPU of `pid` in ms (0 if gone). */
function cpuMs(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS;
  } catch {
    return 0;
  }
}

function postgresPids(): number[] {
  const pids: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      if (readFileSync(`/proc/${name}/comm`, 'utf8').trim() === 'postgres') pids.push(Number(name));
    } catch {
      // gone
    }
  }
  return pids;
}

interface WalCounters {
  bytes: number;
  records: number;
  fpi: number;
  fsyncs: number;
}

/** The server's WAL position and counters (all backends, so the sampler's own are included: it writes none). */
async function walCounters(admin: pg.Pool): Promise<WalCounters> {
  const { rows } = await admin.query<{ bytes: string; records: string; fpi: string; fsyncs: string }>(
    `SELECT pg_wal_lsn_diff(pg_current_wal_insert_lsn(), '0/0') AS bytes, w.wal_records AS records, w.wal_fpi AS fpi,
            (SELECT sum(fsyncs) FROM pg_stat_io WHERE object = 'wal') AS fsyncs
     FROM pg_stat_wal w`,
  );
  const r = rows[0] as { bytes: string; records: string; fpi: string; fsyncs: string };
  return { bytes: Number(r.bytes), records: Number(r.records), fpi: Number(r.fpi), fsyncs: Number(r.fsyncs) };
}

function writer(stream: string): { ready: Promise<void>; go(): void; done: Promise<string>; pid: number } {
  const file = join(process.cwd(), 'bench', 'workloads', 'w14-writer.ts');
  const proc = spawn(process.execPath, ['--import', 'tsx', file, kind, url as string, stream, String(count), inFlightArg, '1', 'bench14s', '1'], { stdio: ['pipe', 'pipe', 'inherit'] });
  let out = '';
  let ready!: () => void;
  const isReady = new Promise<void>((r) => (ready = r));
  proc.stdout.setEncoding('utf8').on('data', (c: string) => {
    out += c;
    if (out.startsWith('ready\n')) ready();
  });
  const done = new Promise<string>((resolve, reject) => proc.on('close', (code) => (code === 0 ? resolve(out) : reject(new Error(`writer exited ${code}`)))));
  return { ready: isReady, go: () => proc.stdin.write('go\n'), done, pid: proc.pid as number };
}

async function main(): Promise<void> {
  const admin = new pg.Pool({ connectionString: url, max: 2 });
  await admin.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
  const base = `cost-${randomUUID()}`;
  const streams = Array.from({ length: processes }, (_, i) => (shared ? base : `${base}-${i}`));
  const first = writer(streams[0] as string);
  await first.ready;
  const writers = [first, ...streams.slice(1).map((s) => writer(s))];
  await Promise.all(writers.map((w) => w.ready));
  const pgPids = postgresPids();
  const pgBefore = new Map(pgPids.map((p) => [p, cpuMs(p)]));
  const { rows: me } = await admin.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
  await admin.query('SELECT pg_stat_statements_reset()');
  const walBefore = await walCounters(admin);
  const waits = new Map<string, number>();
  const lockWaits = new Map<string, number>();
  let samples = 0;
  let sampling = true;
  const started = Date.now();
  for (const w of writers) w.go();
  const sampler = (async () => {
    while (sampling) {
      const { rows } = await admin.query<{ w: string }>(
        `SELECT CASE WHEN state = 'active' AND wait_event IS NULL THEN 'CPU' WHEN state = 'active' THEN wait_event_type || ':' || wait_event ELSE state END AS w
         FROM pg_stat_activity WHERE datname = current_database() AND backend_type = 'client backend' AND pid <> $1`,
        [me[0]?.pid],
      );
      const { rows: locks } = await admin.query<{ l: string }>(`SELECT locktype || ' ' || mode AS l FROM pg_locks WHERE NOT granted`);
      samples++;
      for (const r of rows) waits.set(r.w, (waits.get(r.w) ?? 0) + 1);
      for (const r of locks) lockWaits.set(r.l, (lockWaits.get(r.l) ?? 0) + 1);
      await new Promise((r) => setTimeout(r, 10));
    }
  })();
  const outs = await Promise.all(writers.map((w) => w.done));
  sampling = false;
  await sampler;
  const wallMs = Date.now() - started;
  const walAfter = await walCounters(admin);
  const pgCpu = postgresPids().reduce((sum, p) => sum + cpuMs(p) - (pgBefore.get(p) ?? 0), 0);
  const appends = processes * count;
  const reports = outs.map((o) => JSON.parse(o.trim().split('\n')[1] as string) as { start: number; end: number; latencies: number[]; cpuMs: number });
  const nodeCpu = reports.reduce((sum, r) => sum + r.cpuMs, 0);
  const span = Math.max(...reports.map((r) => r.end)) - Math.min(...reports.map((r) => r.start));
  const lat = reports.flatMap((r) => r.latencies).sort((a, b) => a - b);
  const { rows: stmts } = await admin.query<{ query: string; calls: string; mean: number; total: number }>(
    `SELECT regexp_replace(left(query, 90), '\\s+', ' ', 'g') AS query, calls, mean_exec_time AS mean, total_exec_time AS total FROM pg_stat_statements
     WHERE query NOT ILIKE '%pg_stat%' AND calls > 0 ORDER BY calls DESC LIMIT 12`,
  );
  console.log(`${kind}: ${processes} process(es), ${count} appends each, ${shared ? 'one session' : 'own sessions'}: ${((appends * 1000) / span).toFixed(0)} appends/s, p50 ${lat[Math.floor(lat.length / 2)]?.toFixed(2)} ms, p99 ${lat[Math.floor(lat.length * 0.99)]?.toFixed(2)} ms (wall ${wallMs} ms)`);
  console.log(`writer processes' CPU: ${((nodeCpu * 1000) / appends).toFixed(0)} µs per append`);
  console.log(`postgres CPU: ${((pgCpu * 1000) / appends).toFixed(0)} µs per append (${pgCpu.toFixed(0)} ms in all)`);
  const perAppend = (k: keyof WalCounters): string => ((walAfter[k] - walBefore[k]) / appends).toFixed(k === 'bytes' ? 0 : 2);
  console.log(`WAL per append: ${perAppend('bytes')} bytes (pg_current_wal_lsn), ${perAppend('records')} records, ${perAppend('fpi')} full-page images, ${perAppend('fsyncs')} flushes (pg_stat_io fsyncs of the WAL)`);
  console.log('statements per append (calls / appends, mean ms):');
  for (const s of stmts) console.log(`  ${(Number(s.calls) / appends).toFixed(2)}  ${s.mean.toFixed(3)} ms  ${s.query}`);
  console.log(`backends (other than the sampler) per 10 ms sample, mean over ${samples}:`);
  for (const [w, n] of [...waits].sort((a, b) => b[1] - a[1])) console.log(`  ${(n / samples).toFixed(2)}  ${w}`);
  console.log('waiting lock requests per sample:');
  for (const [l, n] of [...lockWaits].sort((a, b) => b[1] - a[1])) console.log(`  ${(n / samples).toFixed(2)}  ${l}`);
  await admin.end();
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
