/**
 * Issue 36's direct check: the snapshot + restore loop (10 state slices, each holding one item that
 * is an array of 1,000 small objects; snapshots A and B; restore A/B in turn and take a snapshot)
 * timed over the first 10,000 iterations of each of SESSIONS new sessions in one process, then on
 * one long-lived session. `npx tsx bench/hand/fresh-snapshot.ts [sessions] [shape=issue|log]`.
 */
import { z } from 'zod';
import { PerformanceObserver } from 'node:perf_hooks';
let gcMs = 0;
new PerformanceObserver((l) => { for (const e of l.getEntries()) gcMs += e.duration; }).observe({ entryTypes: ['gc'] });
import { createSession, defineEvent, defineSlice, append } from '../../src/index';

const SESSIONS = Number(process.argv[2] ?? 14);
const SHAPE = process.argv[3] ?? 'issue';
const ITERS = 10_000;
const names = Array.from({ length: 10 }, (_, i) => `slice${i}`);
const Grown = defineEvent('items/grown');
const Item = z.object({ id: z.number(), text: z.string() });
const arrayOf = (i: number) => Array.from({ length: 1000 }, (_, j) => ({ id: i * 10_000 + j, text: `item ${j}` }));
const slices =
  SHAPE === 'issue'
    ? names.map((name, i) =>
        defineSlice(name, {
          policy: 'state',
          initial: [arrayOf(i)],
          reducers: ({ on }) => [on(Grown, (view) => append([...(view.latest() ?? []), { id: -1, text: 'g' }]))],
        }),
      )
    : names.map((name, i) =>
        defineSlice(name, {
          policy: 'state',
          schema: Item,
          initial: arrayOf(i),
          reducers: ({ on }) => [on(Grown, (view) => append({ id: i * 10_000 + view.size, text: 'grown' }))],
        }),
      );

const now = process.env.CLOCK === "wall" ? () => Number(process.hrtime.bigint()) / 1e6 : () => { const u = process.cpuUsage(); return (u.user + u.system) / 1e3; };
function loop(session: ReturnType<typeof createSession>, iters: number, a: unknown, b: unknown): number {
  gcMs = 0;
  const t0 = now();
  for (let k = 0; k < iters; k++) {
    session.restore((k % 2 === 0 ? a : b) as never);
    session.snapshot();
  }
  return ((now() - t0) * 1e6) / iters;
}
function fresh() {
  const session = createSession({ slices } as never);
  const a = session.snapshot();
  session.dispatch(Grown() as never);
  const b = session.snapshot();
  return { session, a, b };
}
const median = (v: number[]) => [...v].sort((x, y) => x - y)[(v.length - 1) >> 1] as number;
const WARM = Number(process.env.WARM ?? 5);
for (let s = 0; s < WARM; s++) {
  const { session, a, b } = fresh();
  loop(session, ITERS, a, b);
}
const long = fresh();
loop(long.session, ITERS, long.a, long.b);
const freshNs: number[] = [];
const longNs: number[] = [];
for (let s = 0; s < SESSIONS; s++) {
  const { session, a, b } = fresh();
  freshNs.push(loop(session, ITERS, a, b));
  longNs.push(loop(long.session, ITERS, long.a, long.b));
}
console.log(`${SHAPE}: after ${WARM} warm-up sessions, alternating a fresh session's first ${ITERS} iterations and ${ITERS} more on one long-lived session (ns/iteration)`);
console.log(`fresh: median ${median(freshNs).toFixed(0)}  [${freshNs.map((v) => v.toFixed(0)).join(' ')}]`);
console.log(`long:  median ${median(longNs).toFixed(0)}  [${longNs.map((v) => v.toFixed(0)).join(' ')}]`);
