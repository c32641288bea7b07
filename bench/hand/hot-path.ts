/**
 * The per-call workloads of issue 36 item 4 by hand, one contender and workload per process:
 * time per operation (steady, on one long-lived store, and fresh, on a new store per round) and
 * bytes allocated per operation (young-generation growth over 5,000 operations between two full
 * collections; a round in which a scavenge fell is discarded).
 *
 * `npx esbuild bench/hand/hot-path.ts --bundle --platform=node --format=esm --packages=external
 * --outfile=bench/.tmp/hot-path.mjs`, then `NODE_ENV=production BENCH_CLOCK=cpu node --expose-gc
 * bench/.tmp/hot-path.mjs <workload> <contender>` with workload `dispatch`, `fan-out`,
 * `middleware` (three pass-through event middlewares) or `diamond`, and contender `rxslice`,
 * `rxjs`, `redux`, `zustand` (or any other key of `counterStores` for workloads 1, 2, 5); for
 * `middleware` also `rxslice-plain` (the same store without middleware), for `diamond` also
 * `rxslice-dispatch` (S's dispatch alone: C not subscribed), `rxslice-noclock` (the
 * prototype without the clock read, `workloads/coarse-clock.ts`) and `rxslice-graph` (no
 * dispatch: S's storage written directly, then the computed graph's commit hook). Prints
 * `HAND_RESULT <workload> <contender> steady <ns> fresh <ns> bytes <per op>`.
 */
import { PerformanceObserver } from 'node:perf_hooks';
import { createSession } from '../../src/index';
import { computed } from '../../src/computed/computed';
import { graphOf } from '../../src/computed/computed-graph';
import { SESSION_INTERNALS } from '../../src/session/internals';
import type { SliceStorage } from '../../src/storage/slice-storage';
import { SLICES, counterStores, type CounterMiddleware } from '../workloads/counter-stores';
import { coarseClock } from '../workloads/coarse-clock';
import { C, rxslice as rxsliceDiamond, SourceSlice, zustand as zustandDiamond, type Source } from '../workloads/w3-diamond';

const [workload = 'dispatch', contender = 'rxslice'] = process.argv.slice(2);
const gc = (globalThis as { gc?: () => void }).gc;
if (gc === undefined) throw new Error('Run with node --expose-gc.');

let sink = 0;
/** A new store of the workload: returns its one operation. */
function make(): (k: number) => void {
  if (workload === 'diamond') {
    if (contender === 'rxslice-graph') {
      // The prototype with no dispatch at all: S's storage written directly, then the computed
      // graph's commit hook (what the session calls after a commit that changed S). Not a way to
      // use rxslice (no envelope, seq, time, validation or transaction): the floor of the graph.
      const session = createSession({ slices: [SourceSlice] });
      computed(session, C).value$.subscribe((c) => void (sink += c));
      const storage = session[SESSION_INTERNALS].sliceSource('source') as unknown as SliceStorage<Source>;
      const graph = graphOf(session);
      const changed = new Set(['source']);
      let value = 0;
      return () => {
        storage.replace([{ value: ++value }], 0);
        graph.onCommit(changed);
      };
    }
    // `rxslice-noclock`: the prototype without the clock read (workloads/coarse-clock.ts);
    // `rxslice-dispatch`: S's dispatch alone (C is defined but not subscribed: no graph pass).
    const diamond = contender === 'zustand' ? zustandDiamond() : rxsliceDiamond(contender === 'rxslice-noclock' ? coarseClock() : undefined);
    if (contender !== 'rxslice-dispatch') diamond.subscribeC((c) => void (sink += c));
    return () => diamond.update();
  }
  // Workload 5: rxslice with three event middlewares (`rxslice-plain`: the same store without them,
  // the ratio's base), the peers with three store middlewares.
  const middleware: CounterMiddleware = workload !== 'middleware' || contender === 'rxslice-plain' ? 'none' : contender === 'rxslice' ? 'event' : 'store';
  const store = counterStores[(contender === 'rxslice-plain' ? 'rxslice' : contender) as keyof typeof counterStores](middleware);
  if (workload === 'fan-out') for (let i = 0; i < 100; i++) store.subscribe(i % SLICES, (c) => void (sink += c));
  return (k) => store.increment(k % SLICES);
}

const now = (): number => {
  if (process.env['BENCH_CLOCK'] !== 'cpu') return Number(process.hrtime.bigint());
  const { user, system } = process.cpuUsage();
  return (user + system) * 1e3;
};
const ROUND = 100_000;
const time = (op: (k: number) => void): number => {
  const t0 = now();
  for (let k = 0; k < ROUND; k++) op(k);
  return (now() - t0) / ROUND;
};
let scavenges = 0;
new PerformanceObserver((list) => void (scavenges += list.getEntries().length)).observe({ entryTypes: ['gc'] });
const flush = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 10));

const steadyOp = make();
for (let i = 0; i < 10; i++) time(steadyOp);
const steady: number[] = [];
const fresh: number[] = [];
for (let i = 0; i < 11; i++) {
  gc();
  await flush();
  steady.push(time(steadyOp));
  gc();
  await flush();
  fresh.push(time(make()));
}
const bytes: number[] = [];
for (let i = 0; bytes.length < 5 && i < 50; i++) {
  gc();
  await flush();
  const before = scavenges;
  const used = process.memoryUsage().heapUsed;
  for (let k = 0; k < 5_000; k++) steadyOp(k);
  const grown = process.memoryUsage().heapUsed - used;
  await flush();
  if (scavenges === before) bytes.push(grown / 5_000);
}
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[xs.length >> 1] ?? Number.NaN;
process.stdout.write(
  `HAND_RESULT ${workload} ${contender} steady ${median(steady).toFixed(1)} fresh ${median(fresh).toFixed(1)} bytes ${median(bytes).toFixed(0)} (sink ${sink > 0})\n`,
);
