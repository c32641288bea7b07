/**
 * Issue 36's direct check: the snapshot + restore loop (restore A or B in turn, take a snapshot)
 * over the first 10,000 iterations of new sessions, alternating with 10,000 more iterations on one
 * long-lived session, after WARM warm-up sessions; every loop lists the collections that fell
 * into it. `npx tsx bench/hand/fresh-snapshot.ts [sessions=16] [shape=issue|log]`:
 * - `issue`: ten `state` slices, each holding one item, an array of 1,000 small objects;
 * - `log`: ten `state` slices of 1,000 items each (bench workload 7m).
 * Each session gets its own data, made right before it (as a session per request or transcript
 * would); `SHARED=1` builds the data once for every session instead. CPU time (`CLOCK=wall`: wall).
 * `SEPARATE=1`: every fresh session first, then the long-lived one's loops (the issue's check);
 * default: alternating. Collections in a loop print as S (scavenge), M (mark-compact), I
 * (incremental marking step), W (weak callbacks) with their ms.
 */
import { PerformanceObserver, performance } from 'node:perf_hooks';
import { z } from 'zod';
import { append, createSession, defineEvent, defineSlice, type Snapshot } from '../../src/index';

const SESSIONS = Number(process.argv[2] ?? 16);
const SHAPE = process.argv[3] ?? 'issue';
const WARM = Number(process.env['WARM'] ?? 5);
const ITERS = 10_000;
const names = Array.from({ length: 10 }, (_, i) => `slice${i}`);
const Grown = defineEvent('items/grown');
const Item = z.object({ id: z.number(), text: z.string() });
const itemsOf = (i: number) => Array.from({ length: 1000 }, (_, j) => ({ id: i * 10_000 + j, text: `item ${j} of slice ${i}` }));
const slicesOf = () =>
  SHAPE === 'issue'
    ? names.map((name, i) =>
        defineSlice(name, {
          policy: 'state',
          initial: [itemsOf(i)],
          reducers: ({ on }) => [on(Grown, (view) => append([...(view.latest() ?? []), { id: -1, text: 'g' }]))],
        }),
      )
    : names.map((name, i) =>
        defineSlice(name, {
          policy: 'state',
          schema: Item,
          initial: itemsOf(i),
          reducers: ({ on }) => [on(Grown, (view) => append({ id: i * 10_000 + view.size, text: 'grown' }))],
        }),
      );
const shared = slicesOf();

const now =
  process.env['CLOCK'] === 'wall'
    ? () => performance.now()
    : () => {
        const u = process.cpuUsage();
        return (u.user + u.system) / 1e3;
      };
/** Collections (start in performance.now() time, duration ms) and the loops' spans, matched at the end. */
const gcs: { start: number; ms: number; kind: number }[] = [];
new PerformanceObserver((list) => {
  for (const e of list.getEntries()) gcs.push({ start: e.startTime, ms: e.duration, kind: (e as unknown as { detail?: { kind?: number } }).detail?.kind ?? 0 });
}).observe({ entryTypes: ['gc'] });
const spans: [number, number][] = [];

function loop(session: ReturnType<typeof createSession>, a: Snapshot, b: Snapshot): number {
  const p0 = performance.now();
  const t0 = now();
  for (let k = 0; k < ITERS; k++) {
    session.restore(k % 2 === 0 ? a : b);
    session.snapshot();
  }
  const ns = ((now() - t0) * 1e6) / ITERS;
  spans.push([p0, performance.now()]);
  return ns;
}
function fresh() {
  const session = createSession({ slices: process.env['SHARED'] === '1' ? shared : slicesOf() } as never);
  const a = session.snapshot();
  session.dispatch(Grown() as never);
  const b = session.snapshot();
  return { session, a, b };
}
const median = (v: number[]) => [...v].sort((x, y) => x - y)[(v.length - 1) >> 1] as number;
for (let s = 0; s < WARM; s++) {
  const { session, a, b } = fresh();
  loop(session, a, b);
}
const long = fresh();
loop(long.session, long.a, long.b);
const rows = { fresh: [] as [number, number][], long: [] as [number, number][] };
if (process.env['SEPARATE'] === '1') {
  // The issue's check: every fresh session first, then the long-lived one on its own.
  for (let s = 0; s < SESSIONS; s++) {
    const { session, a, b } = fresh();
    rows.fresh.push([loop(session, a, b), spans.length - 1]);
  }
  for (let s = 0; s < SESSIONS; s++) rows.long.push([loop(long.session, long.a, long.b), spans.length - 1]);
} else {
  for (let s = 0; s < SESSIONS; s++) {
    const { session, a, b } = fresh();
    rows.fresh.push([loop(session, a, b), spans.length - 1]);
    rows.long.push([loop(long.session, long.a, long.b), spans.length - 1]);
  }
}
await new Promise((resolve) => setTimeout(resolve, 50));
/** Collection ms/count inside span `i`, `-` for none. */
const gcIn = (i: number): string => {
  const [from, to] = spans[i] as [number, number];
  const inside = gcs.filter((g) => g.start >= from && g.start < to);
  // kind: 1 scavenge (minor), 2 mark-compact (major), 4 incremental marking, 8 weak callbacks.
  return inside.length === 0 ? '-' : inside.map((g) => `${'?SM?I???W'[g.kind] ?? g.kind}${g.ms.toFixed(1)}`).join('+');
};
console.log(`${SHAPE}${process.env['SHARED'] === '1' ? ' (shared data)' : ''}: after ${WARM} warm-up sessions, a fresh session's first ${ITERS} iterations, then ${ITERS} more on one long-lived session, alternating (ns/iteration; collections in the loop)`);
for (const [what, list] of Object.entries(rows)) {
  const ns = list.map(([v]) => v);
  const noGc = list.filter(([, i]) => gcIn(i) === '-').map(([v]) => v);
  console.log(`${what.padEnd(5)} median ${median(ns).toFixed(0)} (loops without a collection: ${noGc.length}, median ${noGc.length ? median(noGc).toFixed(0) : '-'}): ${list.map(([v, i]) => `${v.toFixed(0)}(${gcIn(i)})`).join(' ')}`);
}
