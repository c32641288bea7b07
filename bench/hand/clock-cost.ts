/**
 * Prototype for issue 22's misses on workloads 1 and 7m: what the session's clock read costs.
 * Each envelope's `at` (and a snapshot's) is one `scheduler.now()`; the default scheduler reads
 * `Date.now()`. This runs the same loop on the same session shape twice, in fresh processes,
 * alternating: with the default scheduler, and with a scheduler whose `now()` returns a constant
 * (the alternative: no clock read). Not part of `npm run bench`; run it alone on a quiet machine:
 *
 *     npx tsx bench/hand/clock-cost.ts                 # both workloads, 3 alternating pairs
 *     npx tsx bench/hand/clock-cost.ts run dispatch 1  # one figure (workload, fixed clock 0|1)
 *
 * Prints CPU ns per operation (`process.cpuUsage`, median of 11 rounds after 4 warm-up rounds).
 * Workload 1: one event routed to 10 `onLatest` counter slices. Workload 7m: `snapshot()` then
 * `restore()` alternating two captures of 10 slices × 1,000 items (a whole-snapshot restore).
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { append, createSession, defineEvent, defineSlice, type Session } from '../../src/index';

const SLICES = 10;
const fixedClock = { now: () => 1_795_000_000_000.5, schedule: () => ({ unsubscribe() {} }) } as never;
const cpuNs = (): number => {
  const { user, system } = process.cpuUsage();
  return (user + system) * 1e3;
};

function dispatchLoop(fixed: boolean): () => number {
  const Incremented = defineEvent('counter/incremented', z.object({ slice: z.number().int().min(0) }));
  const slices = Array.from({ length: SLICES }, (_, i) =>
    defineSlice(`counter${i}`, {
      policy: 'state',
      initial: [{ count: 0 }] as { readonly count: number }[],
      reducers: ({ onLatest }) => [onLatest(Incremented, (c, e) => (e.payload.slice === i ? { count: (c?.count ?? 0) + 1 } : c!))],
    }),
  );
  const session = createSession({ slices, ...(fixed ? { scheduler: fixedClock } : {}) });
  const N = 200_000;
  return () => {
    const t0 = cpuNs();
    for (let k = 0; k < N; k++) session.dispatch(Incremented({ slice: k % SLICES }));
    return (cpuNs() - t0) / N;
  };
}

function snapshotLoop(fixed: boolean): () => number {
  const Grown = defineEvent('items/grown');
  const slices = Array.from({ length: SLICES }, (_, i) =>
    defineSlice(`slice${i}`, {
      policy: 'state',
      schema: z.object({ id: z.number(), text: z.string() }),
      initial: Array.from({ length: 1_000 }, (_, j) => ({ id: i * 10_000 + j, text: `item ${j} of slice ${i}` })),
      reducers: ({ on }) => [on(Grown, (view) => append({ id: i * 10_000 + view.size, text: 'grown' }))],
    }),
  );
  const session: Session = createSession({ slices, ...(fixed ? { scheduler: fixedClock } : {}) }) as never;
  const a = session.snapshot();
  session.dispatch(Grown() as never);
  const b = session.snapshot();
  const N = 100_000;
  return () => {
    const t0 = cpuNs();
    for (let k = 0; k < N; k++) {
      session.snapshot();
      session.restore(k % 2 === 0 ? a : b);
    }
    return (cpuNs() - t0) / N;
  };
}

function measureOne(workload: string, fixed: boolean): number {
  const round = workload === 'dispatch' ? dispatchLoop(fixed) : snapshotLoop(fixed);
  for (let i = 0; i < 4; i++) round();
  const samples = Array.from({ length: 11 }, () => round()).sort((x, y) => x - y);
  return samples[5] as number;
}

const [mode, workload, fixed] = process.argv.slice(2);
if (mode === 'run') {
  process.stdout.write(`CLOCK_RESULT ${measureOne(workload as string, fixed === '1')}\n`);
} else {
  const self = fileURLToPath(import.meta.url);
  for (const w of ['dispatch', 'snapshot']) {
    for (let pair = 0; pair < 3; pair++) {
      const figures = ['0', '1'].map((f) => {
        const run = spawnSync(process.execPath, ['--import', 'tsx', self, 'run', w, f], { env: { ...process.env, NODE_ENV: 'production' }, encoding: 'utf8' });
        const m = /CLOCK_RESULT (\S+)/.exec(run.stdout);
        if (m === null) throw new Error(`no result from ${w} ${f}: ${run.stderr}`);
        return Number(m[1]).toFixed(1);
      });
      console.log(`${w}: clock ${figures[0]} ns, fixed clock ${figures[1]} ns (CPU ns per operation)`);
    }
  }
}
