/**
 * The long shared-session run (figures for the closing note of the shared-sessions issue):
 * 8 processes × 10,000 events on one session; one process SIGKILLed mid-run and restarted; one
 * PostgreSQL immediate restart (`pg_ctlcluster ... restart -m immediate`: no checkpoint, every
 * connection cut) mid-run; and a "slow low transaction": a transaction that takes the next seq
 * early, holds it for 3 s while the workers keep appending behind it, and commits last.
 *
 * Then: every event of every worker in the log exactly once, seq gapless, each worker's events in
 * its dispatch order, the slow event at the seq it took, and the same state hash in all 8 processes.
 *
 *   npm run shared:long                      (127.0.0.1:5432, or DATABASE_URL)
 *   npm run shared:long -- --workers 8 --per-worker 10000 --no-restart
 *
 * The restart needs the local cluster managed by pg_ctlcluster (the project's machines); with
 * `--no-restart`, or when pg_ctlcluster is missing, that step is skipped and said so.
 */
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, readdirSync } from 'node:fs';
import pg from 'pg';
import { auditLog, bundleWorker, startWorker, type Worker } from '../test/postgres/multi-process';
import { answers, LOCAL_URL } from './postgres-server';

const arg = (name: string, fallback: number): number => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const workers = arg('workers', 8);
const perWorker = arg('per-worker', 10_000);
const restart = !process.argv.includes('--no-restart');
const url = process.env['DATABASE_URL'] ?? LOCAL_URL;
const prefix = `rxlong_${randomUUID().replace(/-/g, '').slice(0, 10)}`;
const sessionId = randomUUID();
const total = workers * perWorker + 1; // + the slow transaction's event
const log = (line: string): void => console.log(`[${((Date.now() - t0) / 1000).toFixed(1)}s] ${line}`);
const t0 = Date.now();

const progressOf = (w: Worker): number => {
  for (let i = w.lines.length - 1; i >= 0; i--) {
    const line = w.lines[i] as string;
    if (line.startsWith('progress ')) return Number(line.split(' ')[1]);
  }
  return 0;
};
const until = async (check: () => boolean): Promise<void> => {
  while (!check()) await new Promise((r) => setTimeout(r, 20));
};

async function restartPostgres(): Promise<string> {
  if (!restart) return 'skipped (--no-restart)';
  if (!existsSync('/etc/postgresql')) return 'skipped (no pg_ctlcluster cluster here)';
  const version = readdirSync('/etc/postgresql')[0] as string;
  const started = Date.now();
  execFileSync('pg_ctlcluster', ['--skip-systemctl-redirect', version, 'main', 'restart', '-m', 'immediate'], { stdio: 'inherit' });
  while (!(await answers(url, 1_000))) await new Promise((r) => setTimeout(r, 100));
  return `done: PostgreSQL ${version} was down and back in ${Date.now() - started} ms`;
}

async function slowLowTransaction(): Promise<{ seq: number; heldMs: number; appendedBehind: number }> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query('BEGIN');
    const { rows } = await client.query<{ last_seq: string }>(`UPDATE "${prefix}_sessions" SET last_seq = last_seq + 1 WHERE session_id = $1 RETURNING last_seq`, [sessionId]);
    const seq = Number(rows[0]?.last_seq);
    await client.query(`INSERT INTO "${prefix}_events" (session_id, seq, at, type, payload, meta) VALUES ($1, $2, 0, 'load/slow', '{}', '{}')`, [sessionId, seq]);
    const before = running.reduce((sum, w) => sum + progressOf(w), 0);
    const started = Date.now();
    await new Promise((r) => setTimeout(r, 3_000));
    const appendedBehind = running.reduce((sum, w) => sum + progressOf(w), 0) - before;
    await client.query('COMMIT');
    return { seq, heldMs: Date.now() - started, appendedBehind };
  } finally {
    await client.end();
  }
}

let running: Worker[] = [];

async function main(): Promise<void> {
  if (!(await answers(url))) throw new Error(`no PostgreSQL at ${url}; set DATABASE_URL`);
  const file = await bundleWorker();
  log(`${workers} workers × ${perWorker.toLocaleString('en')} events on session ${sessionId} (tables ${prefix}_*)`);
  const args = (w: number) => [url, prefix, sessionId, w, perWorker, total, 20];
  running = Array.from({ length: workers }, (_, w) => startWorker(file, args(w)));
  const sum = (): number => running.reduce((s, w) => s + progressOf(w), 0);
  const all = workers * perWorker;

  await until(() => sum() >= all * 0.2);
  log(`slow low transaction: begins at ${sum()} events`);
  const slow = slowLowTransaction();

  await until(() => progressOf(running[1] as Worker) >= perWorker * 0.35);
  log('SIGKILL worker 1');
  const victim = running[1] as Worker;
  victim.proc.kill('SIGKILL');
  await victim.exited;
  const slowResult = await slow;
  log(`slow low transaction: took seq ${slowResult.seq}, held ${slowResult.heldMs} ms, ${slowResult.appendedBehind} events reported written by the workers meanwhile (at most the bursts already in flight when it took the lock: appends after it wait behind its row lock), committed last`);
  running[1] = startWorker(file, args(1));
  const ready = await (running[1] as Worker).line((l) => l.startsWith('ready '));
  log(`worker 1 restarted: ${ready}`);

  await until(() => sum() >= all * 0.6);
  log(`PostgreSQL immediate restart at ${sum()} events`);
  log(`PostgreSQL restart ${await restartPostgres()}`);

  const hashes = await Promise.all(running.map((w) => w.line((l) => l.startsWith('hash ') || l.startsWith('error '))));
  await Promise.all(running.map((w) => w.exited));
  const distinct = new Set(hashes.map((h) => h.split(' ')[1]));
  const audit = await auditLog(url, prefix, sessionId, workers, perWorker);
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  const { rows } = await admin.query<{ seq: string }>(`SELECT seq FROM "${prefix}_events" WHERE session_id = $1 AND type = 'load/slow'`, [sessionId]);
  for (const table of ['events', 'sessions', 'snapshots', 'schema_version']) await admin.query(`DROP TABLE IF EXISTS "${prefix}_${table}"`);
  await admin.end();
  log(`errors: ${hashes.filter((h) => h.startsWith('error ')).length}; distinct state hashes across ${hashes.length} processes: ${distinct.size}; every process at seq ${[...new Set(hashes.map((h) => h.split(' ')[2]))].join(',')}`);
  log(`log audit: ${JSON.stringify(audit)}; slow event at seq ${rows.map((r) => r.seq).join(',')} (took ${slowResult.seq})`);
  const ok = distinct.size === 1 && hashes.every((h) => h.startsWith('hash ')) && audit.lost === 0 && audit.duplicated === 0 && audit.seqGaps === 0 && audit.outOfOrder === 0 && audit.events === workers * perWorker && Number(rows[0]?.seq) === slowResult.seq;
  log(ok ? 'PASS' : 'FAIL');
  process.exit(ok ? 0 : 1);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
