/**
 * Bytes allocated per snapshot + restore iteration (workload 7m's loop) on a warm session:
 * `node --expose-gc --min-semi-space-size=128 --max-semi-space-size=128` keeps every collection
 * out of the timed loop, so the heap's growth over it is what the loop allocated. Bundle it as
 * bench/README.md says for the hand scripts, then
 * `NODE_ENV=production node --expose-gc --min-semi-space-size=128 --max-semi-space-size=128 bench/.tmp/hand.mjs [issue|log] [iterations]`.
 * What a new session's first calls pay for collections grows with it (see bench/hand/fresh-snapshot.ts).
 */
import { append, createSession, defineEvent, defineSlice } from '../../src/index';

const SHAPE = process.argv[2] ?? 'issue';
const ITERS = Number(process.argv[3] ?? 50_000);
const names = Array.from({ length: 10 }, (_, i) => `slice${i}`);
const Grown = defineEvent('items/grown');
const itemsOf = (i: number) => Array.from({ length: 1000 }, (_, j) => ({ id: i * 10_000 + j, text: `item ${j} of slice ${i}` }));
const slices =
  SHAPE === 'issue'
    ? names.map((name, i) => defineSlice(name, { policy: 'state', initial: [itemsOf(i)], reducers: ({ on }) => [on(Grown, (view) => append([...(view.latest() ?? []), { id: -1, text: 'g' }]))] }))
    : names.map((name, i) => defineSlice(name, { policy: 'state', initial: itemsOf(i), reducers: ({ on }) => [on(Grown, (view) => append({ id: i * 10_000 + view.size, text: 'grown' }))] }));
const session = createSession({ slices } as never);
const a = session.snapshot();
session.dispatch(Grown() as never);
const b = session.snapshot();
const loop = (n: number) => {
  for (let k = 0; k < n; k++) {
    session.restore(k % 2 === 0 ? a : b);
    session.snapshot();
  }
};
loop(20_000);
const gc = (globalThis as { gc?: () => void }).gc;
if (gc === undefined) throw new Error('run with --expose-gc');
gc();
const before = process.memoryUsage().heapUsed;
loop(ITERS);
console.log(`${SHAPE}: ${((process.memoryUsage().heapUsed - before) / ITERS).toFixed(1)} bytes per snapshot + restore`);
