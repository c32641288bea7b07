/**
 * Workload 5 (event middleware) by hand: two sessions in one process, one plain and one with
 * three pass-through event middlewares, timed in alternating rounds of 200,000 dispatches each
 * (steady state: the same sessions every round). Prints every round's ratio and
 * `HAND_RESULT <median with/without>`. `BENCH_CLOCK=cpu` times with this process's CPU time.
 * Run it bundled, with `NODE_ENV=production` (see bench/README.md, "Fresh session").
 */
import { z } from 'zod';
import { createSession, defineEvent, defineSlice, type EventMiddleware } from '../../src/index';

const SLICES = 10;
const Incremented = defineEvent('counter/incremented', z.object({ slice: z.number().int().min(0) }));
const slices = Array.from({ length: SLICES }, (_, i) =>
  defineSlice(`counter${i}`, {
    policy: 'state',
    initial: [{ count: 0 }] as { readonly count: number }[],
    reducers: ({ onLatest }) => [onLatest(Incremented, (counter, e) => (e.payload.slice === i ? { count: (counter?.count ?? 0) + 1 } : counter!))],
  }),
);
const pass: EventMiddleware = (env, next) => next(env);
const plain = createSession({ slices });
const withMiddleware = createSession({ slices, middleware: { events: [pass, pass, pass] } });
const ROUND = 200_000;
const now = (): number => {
  if (process.env['BENCH_CLOCK'] !== 'cpu') return Number(process.hrtime.bigint());
  const { user, system } = process.cpuUsage();
  return (user + system) * 1e3;
};
const round = (session: typeof plain): number => {
  const t0 = now();
  for (let k = 0; k < ROUND; k++) session.dispatch(Incremented({ slice: k % SLICES }));
  return (now() - t0) / ROUND;
};
for (let i = 0; i < 5; i++) {
  round(plain);
  round(withMiddleware);
}
const ratios: number[] = [];
const base: number[] = [];
for (let i = 0; i < 11; i++) {
  const a = round(plain);
  const b = round(withMiddleware);
  base.push(a);
  ratios.push(b / a);
}
const median = (v: number[]): number => [...v].sort((x, y) => x - y)[v.length >> 1] as number;
process.stdout.write(`ratios ${ratios.map((r) => r.toFixed(3)).join(' ')}\nbase ${median(base).toFixed(1)} ns\nHAND_RESULT ${median(ratios).toFixed(3)}\n`);
