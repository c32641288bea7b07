// A writer process of workloads 14p, 14o and 14g (run with `node --import tsx`): opens its
// session (rxslice) or event store (Emmett), prints `ready`, waits for `go` on stdin, appends
// `count` events with `inFlight` appends in flight (each awaited before the next of its lane) or,
// with `burst` > 1, in bursts of `burst` un-awaited dispatches (rxslice) / one
// `appendToStream` of `burst` events (Emmett), and prints one JSON line: start and end
// (performance.timeOrigin + now, ms), the latency of every append in ms, retried conflicts, and
// the process's CPU time (user + system, ms) over the timed part.
// With `sessions` > 1 (workload 14p16x16) the process opens that many sessions (streams),
// `<stream>-0` … on one pool of 10 clients (rxslice: `postgres: { pool }`, so they share one
// LISTEN and one lease connection; Emmett: its event store's pool, pg's default of 10), and each
// session gets `count` events and `inFlight` lanes of its own.
// argv: kind (rxslice | emmett | raw | raw-rxslice) url stream count inFlight burst tablePrefix [sessions]
import { SentLog, Sent } from './w14-events';
import pg from 'pg';
import { createSharedSession } from '../../src/postgres/index';

const [kind, url, stream, countArg, inFlightArg, burstArg, tablePrefix, sessionsArg] = process.argv.slice(2) as [string, string, string, string, string, string, string, string | undefined];
const sessions = Number(sessionsArg ?? 1);
const streams = sessions === 1 ? [stream] : Array.from({ length: sessions }, (_, j) => `${stream}-${j}`);
const count = Number(countArg);
const inFlight = Number(inFlightArg);
const burst = Number(burstArg);
const now = (): number => performance.timeOrigin + performance.now();

interface Appender {
  /** Appends events `ids` (one or a burst) to stream `s` and resolves once all are committed. */
  append(s: number, ids: readonly number[]): Promise<void>;
  conflicts(): number;
  close(): Promise<void>;
}

async function open(): Promise<Appender> {
  if (kind.startsWith('rxslice')) {
    // (Measuring another build: RXSLICE_SRC names its src/postgres/index.ts.)
    const create = process.env['RXSLICE_SRC'] === undefined ? createSharedSession : ((await import(process.env['RXSLICE_SRC'])) as { createSharedSession: typeof createSharedSession }).createSharedSession;
    const pool = sessions === 1 ? undefined : new pg.Pool({ connectionString: url, max: 10 });
    const postgres = pool === undefined ? { connectionString: url, max: 4 } : { pool };
    const opened: Awaited<ReturnType<typeof create>>[] = [];
    for (const sessionId of streams) opened.push(await create({ slices: [SentLog], sessionId, postgres, tablePrefix, validation: 'off', freeze: false, snapshotEvery: 0 }));
    return {
      append: async (s, ids) => void (await Promise.all(ids.map((id) => opened[s]!.dispatch(Sent({ id }))))),
      conflicts: () => 0,
      close: async () => {
        await Promise.all(opened.map((session) => session.dispose()));
        await pool?.end();
      },
    };
  }
  if (kind.startsWith('raw')) return openRaw();
  const { getPostgreSQLEventStore } = await import('@event-driven-io/emmett-postgresql');
  const store = getPostgreSQLEventStore(url);
  let conflicts = 0;
  return {
    // Concurrent appends to one Emmett stream can fail with ExpectedVersionConflictError; retried as its command handlers do.
    append: async (s, ids) => {
      const stream = streams[s] as string;
      const events = ids.map((id) => ({ type: 'bench/sent', data: { id } }));
      for (let attempt = 0; ; attempt++) {
        try {
          await store.appendToStream(stream, events);
          return;
        } catch (error) {
          if ((error as { errorCode?: number }).errorCode !== 412 || attempt >= 1000) throw error;
          conflicts++;
        }
      }
    },
    conflicts: () => conflicts,
    close: () => store.close(),
  };
}

/**
 * The rawest client (bench/hand/append-cost.ts, issue 35): one `pg.Client`, one named prepared
 * statement per awaited append in autocommit (one round trip, one commit), the row rxslice logs
 * (same table layout, `payload` `{"id":n}`, `meta` `{}`). `raw`: an INSERT with `seq` counted by
 * the client (no sequence lock: the floor of one row per commit); `raw-rxslice`: rxslice's append
 * statement (the session row's UPDATE + the INSERT), prepared, without rxslice around it.
 */
async function openRaw(): Promise<Appender> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const t = { events: `"public"."${tablePrefix}_events"`, sessions: `"public"."${tablePrefix}_sessions"` };
  // (The tables are rxslice's: opened once by an rxslice session of the same prefix, so that they exist.)
  const bootstrap = await createSharedSession({ slices: [SentLog], sessionId: `${stream}-bootstrap`, postgres: { connectionString: url, max: 3 }, tablePrefix, validation: 'off', freeze: false, snapshotEvery: 0 });
  await bootstrap.dispose();
  const seqs = streams.map(() => 0);
  for (const sessionId of streams) await client.query(`INSERT INTO ${t.sessions} (session_id) VALUES ($1) ON CONFLICT DO NOTHING`, [sessionId]);
  const statement =
    kind === 'raw'
      ? { name: 'raw_append', text: `INSERT INTO ${t.events} (session_id, seq, at, type, payload, meta) VALUES ($1, $2, $3, $4, $5, $6)` }
      : {
          name: 'raw_rxslice_append',
          text: `WITH s AS (UPDATE ${t.sessions} SET last_seq = last_seq + 1 WHERE session_id = $1 RETURNING last_seq AS seq)
                 INSERT INTO ${t.events} (session_id, seq, at, type, payload, meta) SELECT $1, s.seq, $3, $4, $5, $6 FROM s WHERE $2::bigint IS NOT NULL`,
        };
  return {
    append: async (s, ids) => {
      for (const id of ids) await client.query({ ...statement, values: [streams[s], ++(seqs[s] as number), Date.now(), 'bench/sent', `{"id":${id}}`, '{}'] });
    },
    conflicts: () => 0,
    close: () => client.end(),
  };
}

async function main(): Promise<void> {
  const appender = await open();
  // Warm the connection and the code path outside the timed run (one append, not counted... it is: id -1 is not an event of the run).
  for (let s = 0; s < streams.length; s++) await appender.append(s, [-1]);
  process.stdout.write('ready\n');
  await new Promise<void>((resolve) => process.stdin.once('data', () => resolve()));
  const latencies: number[] = [];
  const next = streams.map(() => 0);
  const start = now();
  const cpuAtStart = process.cpuUsage();
  await Promise.all(
    streams.flatMap((_, s) =>
      Array.from({ length: inFlight }, async () => {
        while ((next[s] as number) < count) {
          const ids: number[] = [];
          while (ids.length < burst && (next[s] as number) < count) ids.push((next[s] as number)++);
          const t = now();
          await appender.append(s, ids);
          latencies.push(now() - t);
        }
      }),
    ),
  );
  const end = now();
  const cpu = process.cpuUsage(cpuAtStart);
  process.stdout.write(`${JSON.stringify({ start, end, latencies, conflicts: appender.conflicts(), cpuMs: (cpu.user + cpu.system) / 1000 })}\n`);
  await appender.close();
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
    process.exit(1);
  },
);
