// One process of the multi-process shared-session runs (test/postgres/multi-process.test.ts
// and scripts/shared-long.ts). Bundled with esbuild and run with plain `node`.
//
// argv: url prefix sessionId worker perWorker expectedTotal burst
// stdout lines: `ready <lastSeq> <alreadyDone> <fromSnapshot>`, `progress <n>`, `sent`,
// `hash <sha256> <lastSeq>`, or `error <message>`.
import { createHash } from 'node:crypto';
import { z } from 'zod';
import { append, defineEvent, defineSlice, replace } from '../../src/index';
import { createSharedSession, type SharedSession } from '../../src/postgres/index';

const [url, prefix, sessionId, workerArg, perWorkerArg, totalArg, burstArg] = process.argv.slice(2) as [string, string, string, string, string, string, string | undefined];
const worker = Number(workerArg);
const perWorker = Number(perWorkerArg);
const expectedTotal = Number(totalArg);
const burst = Number(burstArg ?? 20);

const Entry = z.object({ w: z.number().int(), n: z.number().int() });
export const Wrote = defineEvent('load/wrote', Entry);
/** Every event in log order (so the hash depends on the order too). */
export const Entries = defineSlice('entries', { policy: 'log', schema: Entry, reducers: ({ on }) => [on(Wrote, (_v, e) => append(e.payload))] });
/** Per worker: how many events it wrote and the sum of their n (a state slice changed in place). */
export const Totals = defineSlice('totals', {
  policy: 'state',
  schema: z.object({ w: z.number().int(), count: z.number().int(), sum: z.number().int() }),
  reducers: ({ on }) => [
    on(Wrote, (view, e) => {
      const current = view.all();
      const mine = current.find((t) => t.w === e.payload.w) ?? { w: e.payload.w, count: 0, sum: 0 };
      const next = { w: e.payload.w, count: mine.count + 1, sum: mine.sum + e.payload.n };
      return replace([...current.filter((t) => t.w !== e.payload.w), next].sort((a, b) => a.w - b.w));
    }),
  ],
});

const say = (line: string): void => void process.stdout.write(`${line}\n`);

/**
 * Dispatches with an idempotency key, retrying while PostgreSQL is away (a restart): an append
 * whose outcome is unknown is retried with the same key, so it lands once.
 */
async function dispatchRetrying(session: SharedSession, event: ReturnType<typeof Wrote>, key: string): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    try {
      await session.dispatch(event, { idempotencyKey: key });
      return;
    } catch (error) {
      if ((error as { code?: string }).code !== 'SHARED_LOG_FAILED' || attempt >= 600) throw error;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

async function main(): Promise<void> {
  const session = await createSharedSession({
    slices: [Entries, Totals],
    sessionId,
    postgres: { connectionString: url, max: 3 }, // the least a shared session runs with: 4 workers hold 12
    tablePrefix: prefix,
    pollIntervalMs: 200,
    leaseRetryMs: 200,
    snapshotEvery: 1_000,
    validation: 'always',
    freeze: false,
  });
  session.errors$.subscribe((e) => process.stderr.write(`worker ${worker}: ${e.message}\n`));
  // What this worker already wrote (before a kill): the log holds a prefix of its dispatches.
  const done = session.read(Entries).filter((e) => e.w === worker).length;
  say(`ready ${session.lastSeq} ${done} ${session.startup.fromSnapshot ?? 0}`);
  for (let n = done; n < perWorker; ) {
    const end = Math.min(perWorker, n + burst);
    const batch: Promise<unknown>[] = [];
    for (let i = n; i < end; i++) batch.push(dispatchRetrying(session, Wrote({ w: worker, n: i }), `w${worker}-${i}`));
    await Promise.all(batch);
    n = end;
    say(`progress ${n}`);
  }
  say('sent');
  while (session.lastSeq < expectedTotal) {
    await session.catchUp().catch(() => undefined);
    if (session.lastSeq < expectedTotal) await new Promise((r) => setTimeout(r, 50));
  }
  const state = JSON.stringify({ entries: session.read(Entries), totals: session.read(Totals) });
  say(`hash ${createHash('sha256').update(state).digest('hex')} ${session.lastSeq}`);
  await session.dispose();
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    say(`error ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  },
);
