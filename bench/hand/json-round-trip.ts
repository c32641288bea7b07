/**
 * Workload 7j's round trip by hand, one session in one process: `session.restore(snapshotFromJSON(
 * JSON.stringify(session.snapshot()), slices))` over ten `state` slices of 1,000 `{ id, text }`
 * items, CPU time per round trip. `[schema|noschema] [round trips=300]`; `NOCAT=1` runs the session
 * without its snapshot catalogue (`snapshotCatalogue: false`). Bundle it as bench/README.md says
 * for the hand scripts and run it with `NODE_ENV=production`; `node --cpu-prof` profiles it.
 * The floor is `state = JSON.parse(JSON.stringify(state))` of the same items (printed first).
 * `PARTS=1` also times the steps of the round trip apart (snapshot, stringify, `JSON.parse` of the
 * same text, `snapshotFromJSON`, restore; the parse is timed on its own so that `snapshotFromJSON`
 * minus it is what the checks and the freeze cost).
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

if (process.env['PARTS'] === '1') {
  const parts = { snapshot: 0, stringify: 0, parse: 0, snapshotFromJSON: 0, restore: 0 };
  for (let r = 0; r < N; r++) {
    let t = cpu();
    const snapshot = session.snapshot();
    let u = cpu();
    parts.snapshot += u - t;
    const text = JSON.stringify(snapshot);
    t = cpu();
    parts.stringify += t - u;
    JSON.parse(text);
    u = cpu();
    parts.parse += u - t;
    const read = snapshotFromJSON(text, slices);
    t = cpu();
    parts.snapshotFromJSON += t - u;
    session.restore(read);
    parts.restore += cpu() - t;
  }
  console.log(Object.entries(parts).map(([step, ms]) => `${step} ${(ms / N).toFixed(3)} ms`).join(', '));
}
