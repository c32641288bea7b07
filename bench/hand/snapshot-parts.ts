/**
 * Workload 7m's iteration taken apart on one long-lived session of `SLICES` `state` slices of
 * 1,000 items (CPU time, median of 5 rounds of `ITERS` iterations each, one process): `full`
 * (restore A or B in turn, then a snapshot), `restoreOnly`, `snapOnly` (snapshots with nothing
 * changed in between: their capture lists are shared) and `now` (one `Date.now()`, of which the
 * session reads one per restore envelope and one per snapshot). Run it with 1 and with 10 slices:
 * the difference over 9 is what each slice costs, the rest is per call. Bundle it as
 * bench/README.md says for the hand scripts, then
 * `NODE_ENV=production node bench/.tmp/hand.mjs [ITERS=300000] [SLICES=10]` (`PARTS=full` runs that
 * loop alone, e.g. under `node --cpu-prof`).
 */
import { append, createSession, defineEvent, defineSlice } from '../../src/index';

const ITERS = Number(process.argv[2] ?? 300_000);
const SLICES = Number(process.argv[3] ?? 10);
const names = Array.from({ length: SLICES }, (_, i) => `slice${i}`);
const Grown = defineEvent('items/grown');
const itemsOf = (i: number) => Array.from({ length: 1000 }, (_, j) => ({ id: i * 10_000 + j, text: `item ${j} of slice ${i}` }));
const slices = names.map((name, i) =>
  defineSlice(name, { policy: 'state', initial: itemsOf(i), reducers: ({ on }) => [on(Grown, (view) => append({ id: i * 10_000 + view.size, text: 'grown' }))] }),
);
const session = createSession({ slices });
const a = session.snapshot();
session.dispatch(Grown());
const b = session.snapshot();
let sink = 0;
const loops: Record<string, (n: number) => void> = {
  full(n) {
    for (let k = 0; k < n; k++) {
      session.restore(k % 2 === 0 ? a : b);
      session.snapshot();
    }
  },
  restoreOnly(n) {
    for (let k = 0; k < n; k++) session.restore(k % 2 === 0 ? a : b);
  },
  snapOnly(n) {
    for (let k = 0; k < n; k++) session.snapshot();
  },
  now(n) {
    for (let k = 0; k < n; k++) sink += Date.now();
  },
};
// `PARTS=full,now` runs only those loops (for a CPU profile of one of them).
const only = process.env.PARTS?.split(',');
if (only !== undefined) for (const name of Object.keys(loops)) if (!only.includes(name)) delete loops[name];
for (const loop of Object.values(loops)) loop(50_000);
const results: Record<string, number[]> = {};
for (let round = 0; round < 5; round++) {
  for (const [name, loop] of Object.entries(loops)) {
    const t0 = process.cpuUsage();
    loop(ITERS);
    const t = process.cpuUsage(t0);
    (results[name] ??= []).push(((t.user + t.system) * 1000) / ITERS);
  }
}
for (const [name, ns] of Object.entries(results)) {
  ns.sort((x, y) => x - y);
  console.log(`${SLICES} slices, ${name.padEnd(11)} median ${(ns[2] as number).toFixed(1)} ns (${ns.map((x) => x.toFixed(0)).join(' ')})${sink < 0 ? '' : ''}`);
}
