/**
 * Workload 3 (diamond) taken apart by hand, steady state on one store per process: `dispatch`
 * the dispatch of S's event with no computed slice (the session's pipeline alone), `graph` the
 * same with A, B, C defined and C's `value$` subscribed (the workload), `zustand` Zustand's one
 * selector. `npx esbuild ... --bundle` then `NODE_ENV=production BENCH_CLOCK=cpu node out.mjs
 * <part>`; prints `HAND_RESULT <median ns/update>` of 11 rounds of 100,000 updates.
 */
import { createStore as createZustandStore } from 'zustand/vanilla';
import { subscribeWithSelector } from 'zustand/middleware';
import { createSession, defineEvent, defineSlice } from '../../src/index';
import { computed } from '../../src/computed/computed';
import { defineComputed } from '../../src/computed/define-computed';

interface Source {
  readonly value: number;
}
const f = (s: Source): number => s.value * 2;
const g = (s: Source): number => s.value + 1;
const h = (a: number, b: number): number => a + b;
const Incremented = defineEvent('source/incremented');
const SourceSlice = defineSlice('source', {
  policy: 'state',
  initial: [{ value: 0 }] as Source[],
  reducers: ({ onLatest }) => [onLatest(Incremented, (s) => ({ value: (s?.value ?? 0) + 1 }))],
});
const A = defineComputed('a', [SourceSlice], (items) => f(items[items.length - 1]!));
const B = defineComputed('b', [SourceSlice], (items) => g(items[items.length - 1]!));
const C = defineComputed('c', [A, B], h);

const part = process.argv[2] ?? 'graph';
let sink = 0;
let update: () => void;
if (part === 'zustand') {
  interface State {
    readonly source: Source;
    increment(): void;
  }
  const store = createZustandStore<State>()(
    subscribeWithSelector((set) => ({ source: { value: 0 }, increment: () => set((state) => ({ source: { value: state.source.value + 1 } })) })),
  );
  store.subscribe((s) => h(f(s.source), g(s.source)), (c) => void (sink = c));
  update = () => store.getState().increment();
} else {
  const session = createSession({ slices: [SourceSlice] });
  if (part === 'graph') computed(session, C).value$.subscribe((c) => void (sink = c));
  update = () => void session.dispatch(Incremented());
}
const ROUND = 100_000;
const now = (): number => {
  if (process.env['BENCH_CLOCK'] !== 'cpu') return Number(process.hrtime.bigint());
  const { user, system } = process.cpuUsage();
  return (user + system) * 1e3;
};
const round = (): number => {
  const t0 = now();
  for (let k = 0; k < ROUND; k++) update();
  return (now() - t0) / ROUND;
};
for (let i = 0; i < 10; i++) round();
const samples: number[] = [];
for (let i = 0; i < 11; i++) samples.push(round());
samples.sort((a, b) => a - b);
process.stdout.write(`${part} (sink ${sink > 0}) HAND_RESULT ${samples[5]!.toFixed(1)} (${samples[0]!.toFixed(1)} – ${samples[10]!.toFixed(1)})\n`);
