/**
 * The prototype behind the "rxslice (no clock read)" rows of workloads 1, 3, 6 and 7m: a
 * scheduler whose `now()` returns a cached reading of `Date.now()`, refreshed by a 1 ms timer,
 * instead of reading the clock. What it measures is the alternative to one clock read per
 * envelope (and per snapshot): the session itself is unchanged. Not a recommendation: inside
 * one synchronous run of dispatches the timer never fires, so every envelope of the run gets the
 * same `at` (time windows and item times would stop moving); `schedule` is the async scheduler's.
 */
import { asyncScheduler, type SchedulerLike } from 'rxjs';

let cached = Date.now();
let timer: ReturnType<typeof setInterval> | undefined;

/** The shared coarse clock (one timer per process, unref'd). */
export function coarseClock(): SchedulerLike {
  if (timer === undefined) {
    timer = setInterval(() => {
      cached = Date.now();
    }, 1);
    timer.unref();
  }
  return { now: () => cached, schedule: (work, delay, state) => asyncScheduler.schedule(work as never, delay, state) };
}
