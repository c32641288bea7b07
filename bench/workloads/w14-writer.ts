// A writer process of workloads 14p, 14o and 14g (run with `node --import tsx`): opens its
// session (rxslice) or event store (Emmett), prints `ready`, waits for `go` on stdin, appends
// `count` events with `inFlight` appends in flight (each awaited before the next of its lane) or,
// with `burst` > 1, in bursts of `burst` un-awaited dispatches (rxslice) / one
// `appendToStream` of `burst` events (Emmett), and prints one JSON line: start and end
// (performance.timeOrigin + now, ms), the latency of every append in ms, and retried conflicts.
// argv: kind (rxslice | emmett) url stream count inFlight burst tablePrefix
import { SentLog, Sent } from './w14-events';
import { createSharedSession } from '../../src/postgres/index';

const [kind, url, stream, countArg, inFlightArg, burstArg, tablePrefix] = process.argv.slice(2) as [string, string, string, string, string, string, string];
const count = Number(countArg);
const inFlight = Number(inFlightArg);
const burst = Number(burstArg);
const now = (): number => performance.timeOrigin + performance.now();

interface Appender {
  /** Appends events `ids` (one or a burst) and resolves once all are committed. */
  append(ids: readonly number[]): Promise<void>;
  conflicts(): number;
  close(): Promise<void>;
}

async function open(): Promise<Appender> {
  if (kind.startsWith('rxslice')) {
    // (Measuring another build: RXSLICE_SRC names its src/postgres/index.ts.)
    const create = process.env['RXSLICE_SRC'] === undefined ? createSharedSession : ((await import(process.env['RXSLICE_SRC'])) as { createSharedSession: typeof createSharedSession }).createSharedSession;
    const session = await create({ slices: [SentLog], sessionId: stream, postgres: { connectionString: url, max: 4 }, tablePrefix, validation: 'off', freeze: false, snapshotEvery: 0 });
    return {
      append: async (ids) => void (await Promise.all(ids.map((id) => session.dispatch(Sent({ id }))))),
      conflicts: () => 0,
      close: () => session.dispose(),
    };
  }
  const { getPostgreSQLEventStore } = await import('@event-driven-io/emmett-postgresql');
  const store = getPostgreSQLEventStore(url);
  let conflicts = 0;
  return {
    // Concurrent appends to one Emmett stream can fail with ExpectedVersionConflictError; retried as its command handlers do.
    append: async (ids) => {
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

async function main(): Promise<void> {
  const appender = await open();
  // Warm the connection and the code path outside the timed run (one append, not counted... it is: id -1 is not an event of the run).
  await appender.append([-1]);
  process.stdout.write('ready\n');
  await new Promise<void>((resolve) => process.stdin.once('data', () => resolve()));
  const latencies: number[] = [];
  let next = 0;
  const start = now();
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (next < count) {
        const ids: number[] = [];
        while (ids.length < burst && next < count) ids.push(next++);
        const t = now();
        await appender.append(ids);
        latencies.push(now() - t);
      }
    }),
  );
  const end = now();
  process.stdout.write(`${JSON.stringify({ start, end, latencies, conflicts: appender.conflicts() })}\n`);
  await appender.close();
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
    process.exit(1);
  },
);
