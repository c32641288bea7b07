/**
 * Workload 7j's round trip by hand, one session in one process: `session.restore(snapshotFromJSON(
 * JSON.stringify(session.snapshot()), slices))` over ten `state` slices of 1,000 `{ id, text }`
 * items, CPU time per round trip. `[schema|noschema] [round trips=300]`; `NOCAT=1` runs the session
 * without its snapshot catalogue (`snapshotCatalogue: false`). Bundle it as bench/README.md says
 * for the hand scripts and run it with `NODE_ENV=production`; `node --cpu-prof` profiles it.
 * The floor is `state = JSON.parse(JSON.stringify(state))` of the same items (printed first).
 */
import { z } from 'zod';
import { append, createSession, defineEvent, defineSlice, snapshotFromJSON } from '../../src/index';

const schema = process.argv[2] === 'schema';
const N = Number(process.argv[3] ?? 300);
const names = Array.from({ length: 10 }, (_, i) => `slice${i}`);
const Grown = defineEvent('items/grown');
const Item = z.object({ id: z.number(), text: z.string() });
const itemsOf = (i: number) => Array.from({ length: 1000 }, (_, j) => ({ id: i * 10_000 + j, text: `item ${j} of slice ${i}` }));
const cpu = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e3;
};

let state: unknown = Object.fromEntries(names.map((n, i) => [n, itemsOf(i)]));
let t0 = cpu();
for (let r = 0; r < N; r++) state = JSON.parse(JSON.stringify(state));
console.log(`plain JSON.parse(JSON.stringify(state)): ${((cpu() - t0) / N).toFixed(3)} ms/round trip`);

const slices = names.map((name, i) =>
  defineSlice(name, {
    policy: 'state',
    ...(schema ? { schema: Item } : {}),
    initial: itemsOf(i),
    reducers: ({ on }) => [on(Grown, (view) => append({ id: i * 10_000 + view.size, text: 'grown' }))],
  }),
);
const session = createSession({ slices, ...(process.env['NOCAT'] === '1' ? { snapshotCatalogue: false as const } : {}) });
session.dispatch(Grown());
t0 = cpu();
for (let r = 0; r < N; r++) session.restore(snapshotFromJSON(JSON.stringify(session.snapshot()), slices));
console.log(`rxslice ${schema ? 'with a zod schema per item' : 'without schemas'}: ${((cpu() - t0) / N).toFixed(3)} ms/round trip`);
