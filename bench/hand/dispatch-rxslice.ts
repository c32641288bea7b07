/**
 * Workload 1 for rxslice written by hand, with no harness: its own session, its own loop calling
 * `session.dispatch` directly (no `CounterStore` face, no `measure`), warmed up on the same
 * session, then timed in rounds on that session. `bench/loop-check.ts` runs it beside the
 * harness's `dispatch rxslice` worker: the two agreeing shows the harness's timed loop costs
 * nothing a hand-written loop would not (it is not megamorphic, nothing of another contender
 * runs in its process). Prints `HAND_RESULT <median ns/dispatch>`.
 */
import { z } from 'zod';
import { createSession, defineEvent, defineSlice } from '../../src/index';

const SLICES = 10;
const Incremented = defineEvent('counter/incremented', z.object({ slice: z.number().int().min(0) }));
const slices = Array.from({ length: SLICES }, (_, i) =>
  defineSlice(`counter${i}`, {
    policy: 'state',
    initial: [{ count: 0 }] as { readonly count: number }[],
    reducers: ({ onLatest }) => [onLatest(Incremented, (counter, e) => (e.payload.slice === i ? { count: (counter?.count ?? 0) + 1 } : counter!))],
  }),
);
const session = createSession({ slices });
const handles = slices.map((s) => session.slice(s));
const ROUND = 200_000;
/** Nanoseconds on the harness's clock (`BENCH_CLOCK=cpu`: this process's CPU time). */
const now = (): number => {
  if (process.env['BENCH_CLOCK'] !== 'cpu') return Number(process.hrtime.bigint());
  const { user, system } = process.cpuUsage();
  return (user + system) * 1e3;
};
let done = 0;
const round = (): number => {
  const t0 = now();
  for (let k = 0; k < ROUND; k++) session.dispatch(Incremented({ slice: k % SLICES }));
  const ns = now() - t0;
  done += ROUND;
  return ns / ROUND;
};
for (let i = 0; i < 10; i++) round();
const samples: number[] = [];
for (let i = 0; i < 11; i++) samples.push(round());
for (const h of handles) {
  if (h.latest()?.count !== done / SLICES) throw new Error(`count ${h.latest()?.count}, expected ${done / SLICES}`);
}
samples.sort((a, b) => a - b);
process.stdout.write(`HAND_RESULT ${samples[5]}\n`);
