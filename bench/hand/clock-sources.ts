/**
 * Issue 36's clock read, taken apart: what one reading costs per source, and workload 7m's
 * iteration (restore A or B in turn, then a snapshot, on one long-lived session of 10 `state`
 * slices × 1,000 items: two readings an iteration) with each source as the session's scheduler.
 * Sources:
 *
 * - `async`: RxJS's `asyncScheduler.now()` (the session's default: `Date.now()` behind the
 *   timestamp provider's delegate check);
 * - `date`: `Date.now()` called directly; `perf`: `Math.floor(performance.timeOrigin + performance.now())`;
 * - `ticker`: a worker thread writes `Date.now()` into shared memory every millisecond
 *   (`startTicker` of `bench/workloads/coarse-clock.ts`); a reading is one `Atomics.load` (plus
 *   the max with the last reading, so it never goes back). It keeps moving during a long
 *   synchronous run of the main thread (unlike the main-thread timer of the "no clock read" rows),
 *   at Date.now's 1 ms resolution, up to one timer period (plus the worker's scheduling delay) late;
 * - `every8`: `Date.now()` on every 8th reading, the last one in between (so up to 7 readings
 *   late however long they are apart: the prototype of "share one reading between calls").
 *
 * CPU time is the process's (`process.cpuUsage`, the ticker thread's wake-ups included); wall
 * time beside it. Median of 7 rounds after 3 warm-up rounds, one process per source, alternating.
 * Not part of `npm run bench`. Bundle it as bench/README.md says for the hand scripts, then
 * `NODE_ENV=production node bench/.tmp/clock-sources.mjs` (all sources, 3 passes) or
 * `… run <source>` (one).
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { asyncScheduler, type SchedulerLike } from 'rxjs';
import { append, createSession, defineEvent, defineSlice } from '../../src/index';
import { startTicker } from '../workloads/coarse-clock';

type Source = 'async' | 'date' | 'perf' | 'ticker' | 'every8';
const SOURCES: readonly Source[] = ['async', 'date', 'perf', 'ticker', 'every8'];

/** A reading function for `source` (starts the ticker thread for `ticker`). */
function readingOf(source: Source): () => number {
  switch (source) {
    case 'async':
      return () => asyncScheduler.now();
    case 'date':
      return () => Date.now();
    case 'perf': {
      const origin = performance.timeOrigin;
      return () => Math.floor(origin + performance.now());
    }
    case 'ticker':
      return startTicker();
    case 'every8': {
      let n = 0;
      let last = 0;
      return () => ((n++ & 7) === 0 ? (last = Date.now()) : last);
    }
  }
}

function schedulerOf(read: () => number): SchedulerLike {
  return { now: read, schedule: (work, delay, state) => asyncScheduler.schedule(work as never, delay, state) };
}

function measure(source: Source): { readNs: number; readWallNs: number; iterNs: number; iterWallNs: number } {
  const read = readingOf(source);
  const Grown = defineEvent('items/grown');
  const slices = Array.from({ length: 10 }, (_, i) =>
    defineSlice(`slice${i}`, {
      policy: 'state',
      initial: Array.from({ length: 1000 }, (_, j) => ({ id: i * 10_000 + j, text: `item ${j} of slice ${i}` })),
      reducers: ({ on }) => [on(Grown, (view) => append({ id: i * 10_000 + view.size, text: 'grown' }))],
    }),
  );
  const session = createSession({ slices, scheduler: schedulerOf(read) });
  const a = session.snapshot();
  session.dispatch(Grown());
  const b = session.snapshot();
  let sink = 0;
  const reads = (n: number): void => {
    for (let k = 0; k < n; k++) sink += read();
  };
  const iterations = (n: number): void => {
    for (let k = 0; k < n; k++) {
      session.restore(k % 2 === 0 ? a : b);
      sink += session.snapshot().seq;
    }
  };
  const time = (loop: (n: number) => void, n: number): [number, number] => {
    const c0 = process.cpuUsage();
    const w0 = performance.now();
    loop(n);
    const c = process.cpuUsage(c0);
    return [((c.user + c.system) * 1000) / n, ((performance.now() - w0) * 1e6) / n];
  };
  for (let r = 0; r < 3; r++) {
    time(reads, 1_000_000);
    time(iterations, 100_000);
  }
  const samples: [number, number, number, number][] = [];
  for (let r = 0; r < 7; r++) samples.push([...time(reads, 2_000_000), ...time(iterations, 200_000)] as [number, number, number, number]);
  const median = (i: number): number => (samples.map((s) => s[i] as number).sort((x, y) => x - y)[3] as number) + (sink === -1 ? 1 : 0);
  return { readNs: median(0), readWallNs: median(1), iterNs: median(2), iterWallNs: median(3) };
}

const [mode, source] = process.argv.slice(2);
if (mode === 'run') {
  process.stdout.write(`CLOCK_SOURCE ${JSON.stringify(measure(source as Source))}\n`);
  process.exit(0);
} else {
  const self = fileURLToPath(import.meta.url);
  const all: Record<string, number[][]> = {};
  for (let pass = 0; pass < 3; pass++) {
    for (const s of SOURCES) {
      const run = spawnSync(process.execPath, [self, 'run', s], { env: { ...process.env, NODE_ENV: 'production' }, encoding: 'utf8' });
      const m = /CLOCK_SOURCE (.+)/.exec(run.stdout);
      if (m === null) throw new Error(`no result from ${s}: ${run.stderr}`);
      const r = JSON.parse(m[1] as string) as ReturnType<typeof measure>;
      (all[s] ??= []).push([r.readNs, r.readWallNs, r.iterNs, r.iterWallNs]);
      console.log(`pass ${pass} ${s.padEnd(6)} read ${r.readNs.toFixed(1)} ns cpu / ${r.readWallNs.toFixed(1)} wall; 7m iteration ${r.iterNs.toFixed(1)} ns cpu / ${r.iterWallNs.toFixed(1)} wall`);
    }
  }
  for (const [s, rows] of Object.entries(all)) {
    const col = (i: number): string => rows.map((r) => (r[i] as number).toFixed(1)).sort((x, y) => Number(x) - Number(y)).join(' / ');
    console.log(`${s.padEnd(6)} read cpu ${col(0)}  |  7m cpu ${col(2)}  wall ${col(3)}`);
  }
}
