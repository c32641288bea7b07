/**
 * Workload 6's listener-style round trip by hand: `listen(session, Ping, handler)` dispatching the
 * follow-up `Pong`, against Elf's (a subscription on the pings store calling the follow-up update),
 * in one process, alternating rounds of 100,000 round trips on long-lived stores. Prints the bytes
 * allocated per round trip (run with `node --expose-gc`), every round's ratio and `HAND_RESULT
 * <median rxslice / Elf>`. `[rxslice|elf] [rounds]` alone runs only that side (for `node --cpu-prof`). `BENCH_CLOCK=cpu` times with this process's CPU time. Bundle
 * it and run it with `NODE_ENV=production` (see bench/README.md, "Fresh session").
 */
import { skip } from 'rxjs';
import { createStore as createElfStore, enableElfProdMode, select, withProps } from '@ngneat/elf';
import { z } from 'zod';
import { createSession, defineEvent, defineSlice, listen } from '../../src/index';

interface Tally {
  readonly count: number;
  readonly lastId: number;
}
const EMPTY: Tally = { count: 0, lastId: -1 };
const tally = (state: Tally, id: number): Tally => ({ count: state.count + 1, lastId: id });
const Ping = defineEvent('ping/sent', z.object({ id: z.number() }));
const Pong = defineEvent('ping/answered', z.object({ id: z.number() }));
const Pings = defineSlice('pings', { policy: 'state', initial: [EMPTY], reducers: ({ onLatest }) => [onLatest(Ping, (t, e) => tally(t ?? EMPTY, e.payload.id))] });
const Pongs = defineSlice('pongs', { policy: 'state', initial: [EMPTY], reducers: ({ onLatest }) => [onLatest(Pong, (t, e) => tally(t ?? EMPTY, e.payload.id))] });

const session = createSession({ slices: [Pings, Pongs] });
listen(session, Ping, (committed, api) => api.dispatch(Pong({ id: committed.event.payload.id })));
const rxPing = (id: number): void => void session.dispatch(Ping({ id }));

enableElfProdMode();
const pings = createElfStore({ name: 'pings' }, withProps<Tally>(EMPTY));
const pongs = createElfStore({ name: 'pongs' }, withProps<Tally>(EMPTY));
pings.pipe(select((s) => s.lastId), skip(1)).subscribe((id) => pongs.update((s) => tally(s, id)));
const elfPing = (id: number): void => pings.update((s) => tally(s, id));

const ROUND = 100_000;
const now = (): number => {
  if (process.env['BENCH_CLOCK'] !== 'cpu') return Number(process.hrtime.bigint());
  const { user, system } = process.cpuUsage();
  return (user + system) * 1e3;
};
let id = 0;
const round = (ping: (id: number) => void): number => {
  const t0 = now();
  for (let k = 0; k < ROUND; k++) ping(id++);
  return (now() - t0) / ROUND;
};
/** Bytes allocated per round trip: heap growth over 2,000 round trips after a full collection (the smallest of 7 tries, so one with no scavenge in it). */
const bytesPer = (ping: (id: number) => void): number => {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc === undefined) return Number.NaN;
  let least = Number.POSITIVE_INFINITY;
  for (let i = 0; i < 7; i++) {
    gc();
    const used = process.memoryUsage().heapUsed;
    for (let k = 0; k < 2_000; k++) ping(id++);
    least = Math.min(least, (process.memoryUsage().heapUsed - used) / 2_000);
  }
  return least;
};
const only = process.argv[2];
const rounds = Number(process.argv[3] ?? 11);
if (only === 'rxslice' || only === 'elf') {
  const ping = only === 'rxslice' ? rxPing : elfPing;
  const times: number[] = [];
  for (let i = 0; i < rounds; i++) times.push(round(ping));
  process.stdout.write(`${only} ${times.map((t) => t.toFixed(1)).join(' ')} ns/round trip\n`);
} else {
  for (let i = 0; i < 5; i++) {
    round(rxPing);
    round(elfPing);
  }
  const ratios: number[] = [];
  const rx: number[] = [];
  const elf: number[] = [];
  for (let i = 0; i < rounds; i++) {
    const a = round(rxPing);
    const b = round(elfPing);
    rx.push(a);
    elf.push(b);
    ratios.push(a / b);
  }
  const median = (v: number[]): number => [...v].sort((x, y) => x - y)[v.length >> 1] as number;
  if (session.slice(Pongs).latest()?.lastId !== id - ROUND - 1 || pongs.getValue().lastId !== id - 1) throw new Error('round trips were not all answered');
  const rxBytes = bytesPer(rxPing);
  const elfBytes = bytesPer(elfPing);
  process.stdout.write(`bytes per round trip: rxslice ${rxBytes.toFixed(0)}, Elf ${elfBytes.toFixed(0)}\n`);
  process.stdout.write(`ratios ${ratios.map((r) => r.toFixed(3)).join(' ')}\nrxslice ${median(rx).toFixed(1)} ns, Elf ${median(elf).toFixed(1)} ns\nHAND_RESULT ${median(ratios).toFixed(3)}\n`);
}
