// The reader process of workload 14 (run with `node --import tsx`): follows one log until it has
// seen `count` events and prints, for each, the wall-clock time (Date.now(), ms) it became visible
// here. argv: kind (plain | rxslice | emmett) url name count
import pg from 'pg';
import { SentLog } from './w14-events';
import { createSharedSession } from '../../src/postgres/index';

const [kind, url, name, countArg] = process.argv.slice(2) as [string, string, string, string];
const count = Number(countArg);
const visible = new Array<number>(count).fill(0);
let seen = 0;
let finish!: () => void;
const done = new Promise<void>((resolve) => (finish = resolve));
const saw = (id: number): void => {
  if (visible[id] !== 0) return;
  visible[id] = Date.now();
  if (++seen === count) finish();
};


async function main(): Promise<void> {
  let stop: () => Promise<void>;
  if (kind === 'rxslice') {
    const session = await createSharedSession({ slices: [SentLog], sessionId: name, postgres: { connectionString: url }, tablePrefix: 'bench14', validation: 'off', freeze: false, snapshotEvery: 0 });
    session.committed$.subscribe((c) => saw((c.event.payload as { id: number }).id));
    stop = () => session.dispose();
  } else if (kind === 'emmett') {
    const { getPostgreSQLEventStore } = await import('@event-driven-io/emmett-postgresql');
    const store = getPostgreSQLEventStore(url);
    const consumer = store.consumer();
    consumer.reactor({
      processorId: name,
      eachMessage: async (message: { type: string; data: { id: number } }) => {
        if (message.type === 'bench/sent') saw(message.data.id);
      },
    } as never);
    // start() resolves when the consumer stops: not awaited.
    consumer.start().catch((error: unknown) => process.stderr.write(`consumer: ${String(error)}\n`));
    stop = async () => {
      await consumer.stop();
      await consumer.close();
      await store.close();
    };
  } else {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    let last = 0;
    let reading = false;
    const read = async (): Promise<void> => {
      if (reading) return;
      reading = true;
      try {
        for (;;) {
          const { rows } = await client.query<{ pos: string; id: number }>(`SELECT pos, id FROM bench14_plain_log WHERE name = $1 AND pos > $2 ORDER BY pos LIMIT 1000`, [name, last]);
          for (const r of rows) {
            last = Number(r.pos);
            saw(r.id);
          }
          if (rows.length < 1000) break;
        }
      } finally {
        reading = false;
      }
    };
    client.on('notification', () => void read());
    await client.query('LISTEN bench14_plain');
    const poll = setInterval(() => void read(), 50);
    stop = async () => {
      clearInterval(poll);
      await client.end();
    };
  }
  process.stdout.write('ready\n');
  await done;
  process.stdout.write(`${JSON.stringify(visible)}\n`);
  await stop();
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
    process.exit(1);
  },
);
