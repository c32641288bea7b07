/**
 * Prototype for benchmark row 23r (issue 23): what could `all()` of a log slice hand out instead
 * of today's read-only Proxy view (`src/internal/array-view.ts`), and what would each cost?
 * Not part of `npm run bench`; run it alone on a quiet machine:
 *
 *     npx tsx bench/hand/log-read-views.ts            # every figure, each candidate in its own process
 *     npx tsx bench/hand/log-read-views.ts read proxy # one figure (also: append <mode> <n>)
 *
 * Each candidate runs in a fresh process (as in `npm run bench`): one read loop that saw a plain
 * array and Proxies goes polymorphic and misreports whatever it measures next.
 *
 * Part 1, reading a 10,000-item log (ns per item read, by index and by `for…of`), for:
 * - `plain`: a frozen array of the same frozen items (the floor of row 23r);
 * - `proxy`: today's `arrayView` (imported from src);
 * - `proxy-fast`: the same Proxy with a cheaper `get` trap (index keys parsed by hand, no
 *   `Number()`/`String()` round trip, `length` tested after the index);
 * - `proxy-cache`: the trap looks string keys up in a shared `Map<string, number>` of index names;
 * - `materialised`: `Object.freeze(buffer.slice(start, end))`, made once per version on first read.
 *
 * Part 2, the read-after-every-append pattern (append one item, then `all()[size - 1]`, as a UI
 * bound with `useSyncExternalStore` does after each commit), total ms for N appends, for:
 * - `proxy`: a new view per version (today);
 * - `materialise-always`: a frozen copy per version on first `all()` (O(n) each: quadratic);
 * - `materialise-amortised`: a frozen copy only when at least `size` items were appended since the
 *   last copy, a view otherwise (copies at geometric sizes: O(1) amortised per append).
 *
 * Every read is summed and checked, so no loop can be optimised away. Prints one line per figure.
 */
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { arrayView } from '../../src/internal/array-view';

interface Entry {
  readonly id: number;
  readonly text: string;
}

const nowNs = (): number => Number(process.hrtime.bigint());
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;

// ---- prototype views -------------------------------------------------------------------------

const WIN = Symbol('proto.view');
interface Win {
  readonly buffer: readonly unknown[];
  readonly start: number;
  readonly length: number;
}
type Target = unknown[] & { [WIN]: Win };

/** A canonical array index ("0", "17", not "01", "1e3", "-1") parsed by char codes; -1 otherwise. */
function indexOfKey(key: string): number {
  const n = key.length;
  let c = key.charCodeAt(0) - 48;
  if (c < 0 || c > 9 || (c === 0 && n > 1) || n > 15) return -1;
  let v = c;
  for (let k = 1; k < n; k++) {
    c = key.charCodeAt(k) - 48;
    if (c < 0 || c > 9) return -1;
    v = v * 10 + c;
  }
  return v;
}

function* values(this: readonly unknown[]): IterableIterator<unknown> {
  const w = (this as unknown as Target)[WIN];
  for (let i = w.start, end = w.start + w.length; i < end; i++) yield w.buffer[i];
}

const fastHandler: ProxyHandler<Target> = {
  get(t, key, receiver) {
    if (typeof key === 'string') {
      const w = t[WIN];
      const i = indexOfKey(key);
      if (i >= 0) return i < w.length ? w.buffer[w.start + i] : undefined;
      if (key === 'length') return w.length;
    } else if (key === Symbol.iterator) return values;
    return Reflect.get(t, key, receiver);
  },
};

const indexNames = new Map<string, number>();
const cacheHandler: ProxyHandler<Target> = {
  get(t, key, receiver) {
    if (typeof key === 'string') {
      const w = t[WIN];
      const i = indexNames.get(key);
      if (i !== undefined) return i < w.length ? w.buffer[w.start + i] : undefined;
      if (key === 'length') return w.length;
    } else if (key === Symbol.iterator) return values;
    return Reflect.get(t, key, receiver);
  },
};

function protoView<T>(handler: ProxyHandler<Target>, buffer: readonly T[], start: number, end: number): readonly T[] {
  const target = [] as unknown as Target;
  target[WIN] = { buffer, start, length: end - start };
  return new Proxy(target, handler) as unknown as readonly T[];
}

const materialise = <T>(buffer: readonly T[], start: number, end: number): readonly T[] => Object.freeze(buffer.slice(start, end));

// ---- part 1: reading ---------------------------------------------------------------------------

function byIndex(log: readonly Entry[]): number {
  let sum = 0;
  for (let i = 0; i < log.length; i++) sum += (log[i] as Entry).id;
  return sum;
}
function byIteration(log: readonly Entry[]): number {
  let sum = 0;
  for (const item of log) sum += item.id;
  return sum;
}

function readCost(name: string, log: readonly Entry[], n: number): { index: number; iter: number } {
  const expected = (n * (n - 1)) / 2;
  const passes = Math.max(5, Math.round(2_000_000 / n));
  const idx: number[] = [];
  const it: number[] = [];
  for (let round = 0; round < 7; round++) {
    let t0 = nowNs();
    let s = 0;
    for (let p = 0; p < passes; p++) s += byIndex(log);
    let t1 = nowNs();
    if (s !== expected * passes) throw new Error(`${name}: by-index sum ${s}`);
    idx.push((t1 - t0) / (passes * n));
    t0 = nowNs();
    s = 0;
    for (let p = 0; p < passes; p++) s += byIteration(log);
    t1 = nowNs();
    if (s !== expected * passes) throw new Error(`${name}: iteration sum ${s}`);
    it.push((t1 - t0) / (passes * n));
  }
  return { index: median(idx.slice(2)), iter: median(it.slice(2)) };
}

function part1(name: string, n: number): void {
  const buffer: Entry[] = [];
  for (let i = 0; i < n; i++) buffer.push(Object.freeze({ id: i, text: `item ${i}` }));
  buffer.push(Object.freeze({ id: -1, text: 'past the window' })); // a window short of its buffer, as after appends
  const make: Record<string, () => readonly Entry[]> = {
    plain: () => Object.freeze(buffer.slice(0, n)),
    proxy: () => arrayView(buffer, 0, n),
    'proxy-fast': () => protoView(fastHandler, buffer, 0, n),
    'proxy-cache': () => {
      for (let i = indexNames.size; i < n; i++) indexNames.set(String(i), i);
      return protoView(cacheHandler, buffer, 0, n);
    },
    materialised: () => materialise(buffer, 0, n),
  };
  const build = make[name];
  if (build === undefined) throw new Error(`unknown read candidate ${name}`);
  const { index, iter } = readCost(name, build(), n);
  console.log(`RESULT read ${name} ${index} ${iter}`);
}

// ---- part 2: read after every append ------------------------------------------------------------

/** A minimal log storage: one growing buffer, one version per append, `all()` cached per version. */
class Log {
  readonly buffer: Entry[] = [];
  version = 0;
  private allVersion = -1;
  private allItems: readonly Entry[] = [];
  /** `size` at the last materialised copy (amortised mode). */
  private copiedAt = 0;
  copies = 0;
  constructor(private readonly mode: 'proxy' | 'materialise-always' | 'materialise-amortised') {}
  append(item: Entry): void {
    this.buffer.push(item);
    this.version++;
  }
  all(): readonly Entry[] {
    if (this.allVersion === this.version) return this.allItems;
    const size = this.buffer.length;
    let items: readonly Entry[];
    if (this.mode === 'materialise-always' || (this.mode === 'materialise-amortised' && size - this.copiedAt >= this.copiedAt)) {
      items = materialise(this.buffer, 0, size);
      this.copiedAt = size;
      this.copies++;
    } else items = arrayView(this.buffer, 0, size);
    this.allItems = items;
    this.allVersion = this.version;
    return items;
  }
}

function part2(mode: 'proxy' | 'materialise-always' | 'materialise-amortised', n: number): void {
  const times: number[] = [];
  let copies = 0;
  const rounds = mode === 'materialise-always' && n > 10_000 ? 1 : 3; // quadratic: one round is seconds
  for (let round = 0; round < rounds; round++) {
    const log = new Log(mode);
    const t0 = nowNs();
    let sum = 0;
    for (let i = 0; i < n; i++) {
      log.append(Object.freeze({ id: i, text: 'x' }));
      const all = log.all();
      sum += (all[all.length - 1] as Entry).id;
    }
    const t1 = nowNs();
    if (sum !== (n * (n - 1)) / 2) throw new Error(`${mode}: sum ${sum}`);
    times.push((t1 - t0) / 1e6);
    copies = log.copies;
  }
  console.log(`RESULT append ${mode} ${n} ${median(times)} ${copies}`);
}

const [, , kind, name, size] = process.argv;
if (kind === 'read') part1(name as string, 10_000);
else if (kind === 'append') part2(name as 'proxy', Number(size));
else {
  const run = (...args: string[]): string[] => {
    const out = execFileSync(process.execPath, [...process.execArgv, fileURLToPath(import.meta.url), ...args], { encoding: 'utf8' });
    const line = out.split('\n').find((l) => l.startsWith('RESULT '));
    if (line === undefined) throw new Error(`no result from ${args.join(' ')}: ${out}`);
    return line.split(' ').slice(2);
  };
  const floor = run('read', 'plain').slice(1).map(Number) as [number, number];
  for (const c of ['plain', 'proxy', 'proxy-fast', 'proxy-cache', 'materialised']) {
    const [, index, iter] = run('read', c).map(Number) as [number, number, number];
    console.log(
      `read 10000 items  ${c.padEnd(13)} by index ${index.toFixed(2).padStart(7)} ns/item (${(index / floor[0]).toFixed(2)}x plain)` +
        `  for…of ${iter.toFixed(2).padStart(6)} ns/item (${(iter / floor[1]).toFixed(2)}x plain)`,
    );
  }
  for (const n of [10_000, 100_000]) {
    for (const mode of ['proxy', 'materialise-amortised', 'materialise-always']) {
      const [, , ms, copies] = run('append', mode, String(n)).map(Number) as [number, number, number, number];
      console.log(`append+all()[size-1] x ${String(n).padEnd(6)} ${mode.padEnd(22)} ${ms.toFixed(1).padStart(8)} ms (${((ms * 1e6) / n).toFixed(0)} ns/append, ${copies} copies)`);
    }
  }
}
