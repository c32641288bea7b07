/**
 * The prototype behind the "rxslice (no clock read)" rows of workloads 1, 3, 6 and 7m: a
 * scheduler whose `now()` returns a cached reading of `Date.now()` instead of reading the clock.
 * What it measures is the alternative to one clock read per envelope (and per snapshot): the
 * session itself is unchanged. `schedule` is the async scheduler's. Two caches:
 *
 * - default: refreshed by a 1 ms timer on the main thread. Not a recommendation: inside one
 *   synchronous run of dispatches the timer never fires, so every envelope of the run gets the
 *   same `at` (time windows and item times would stop moving).
 * - `BENCH_NOCLOCK=ticker`: refreshed by a worker thread that writes `Date.now()` into shared
 *   memory every millisecond; a reading is one `Atomics.load` (and a max with the last one, so it
 *   never goes back). It keeps moving during a long synchronous run, at `Date.now`'s 1 ms
 *   resolution, up to a timer period (plus the thread's scheduling delay) late. The thread's
 *   wake-ups count in the process's CPU time (`BENCH_CLOCK=cpu`), not in wall time.
 */
import { Worker } from 'node:worker_threads';
import { asyncScheduler, type SchedulerLike } from 'rxjs';

let cached = Date.now();
let timer: ReturnType<typeof setInterval> | undefined;
let ticker: (() => number) | undefined;

/**
 * Starts a ticker thread (unref'd) and returns its reading: `Date.now()` as the thread last wrote
 * it, never less than the previous reading. Also `bench/hand/clock-sources.ts`'s `ticker` source.
 */
export function startTicker(): () => number {
  // Milliseconds since `base` in one Int32 (24 days of range: enough for a prototype).
  const base = Date.now();
  const shared = new Int32Array(new SharedArrayBuffer(4));
  const worker = new Worker(
    `const { workerData } = require('node:worker_threads'); const a = new Int32Array(workerData.buffer);
     setInterval(() => Atomics.store(a, 0, Date.now() - workerData.base), 1);`,
    { eval: true, workerData: { buffer: shared.buffer, base } },
  );
  worker.unref();
  let last = 0;
  return () => {
    const t = Atomics.load(shared, 0);
    if (t > last) last = t;
    return base + last;
  };
}

/** The shared coarse clock (one timer or ticker thread per process, unref'd). */
export function coarseClock(): SchedulerLike {
  const schedule: SchedulerLike['schedule'] = (work, delay, state) => asyncScheduler.schedule(work as never, delay, state);
  if (process.env.BENCH_NOCLOCK === 'ticker') {
    ticker ??= startTicker();
    return { now: ticker, schedule };
  }
  if (timer === undefined) {
    timer = setInterval(() => {
      cached = Date.now();
    }, 1);
    timer.unref();
  }
  return { now: () => cached, schedule };
}
