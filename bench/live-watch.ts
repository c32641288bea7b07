/**
 * `npx tsx bench/live-watch.ts`: what `rxslice watch` sustains, and how long a transcript line
 * takes from its append to the inspector page (issue 26). Not part of `npm run bench` (it times
 * a separate process through the file system and HTTP); run it alone on a quiet machine.
 *
 * 1. Throughput: `rxslice watch --json` (and `--json --store <tmp>`, `--json --inspect`) in a child
 *    process; the whole bundled transcript (1,512 lines, 3.1 MB) is appended at once; lines/s =
 *    lines / time from the append to the `update` record whose `lines` reaches the total. Each
 *    figure is the median of `LIVE_BENCH_ROUNDS` (default 3) processes, and the watch process's
 *    CPU time over the same span is shown beside it (from /proc: a loaded machine moves it far
 *    less than the wall time).
 * 2. Delay: `rxslice watch --inspect` in a child process; a writer appends one line every
 *    `LIVE_BENCH_GAP_MS` (default 20); a client does what the page does on each server-sent
 *    `events` message (GET /api/summary, then the tail page of /api/events) and also reads the last
 *    envelope (a `watch/lineRead`: the byte offset applied), so each line's delay is the time from
 *    its append to the end of the first page refresh that shows it. Prints p50, p99 and max.
 *    `LIVE_BENCH_LINES=0` leaves it out.
 *
 * `LIVE_BENCH_ROOT=<checkout>` runs another checkout's `bin/rxslice.mjs` (a baseline: the same
 * measurement of the code on another branch).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { appendFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import { childCpuMs } from './lib/child-cpu';

const ROOT = process.env['LIVE_BENCH_ROOT'] ?? fileURLToPath(new URL('..', import.meta.url));
const BIN = path.join(ROOT, 'bin/rxslice.mjs');
const SOURCE = process.env['LIVE_BENCH_TRANSCRIPT'] ?? path.join(ROOT, 'examples/data/spotter-4d5611e5-241a-462a-8d15-5122611a9569.jsonl');
const GAP_MS = Number(process.env['LIVE_BENCH_GAP_MS'] ?? 20);
const DELAY_LINES = Number(process.env['LIVE_BENCH_LINES'] ?? 400);
const ROUNDS = Number(process.env['LIVE_BENCH_ROUNDS'] ?? 3);
const lines = readFileSync(SOURCE, 'utf8').split(/(?<=\n)/).filter((l) => l.length > 0);

function onLines(child: ChildProcess, stream: 'stdout' | 'stderr', onLine: (line: string) => void): void {
  let rest = '';
  child[stream]?.setEncoding('utf8');
  child[stream]?.on('data', (chunk: string) => {
    rest += chunk;
    const parts = rest.split('\n');
    rest = parts.pop() ?? '';
    for (const line of parts) onLine(line);
  });
}

function startWatch(dir: string, args: string[]): ChildProcess {
  return spawn(process.execPath, [BIN, 'watch', dir, ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, INIT_CWD: ROOT } });
}

async function stop(child: ChildProcess): Promise<void> {
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await exited;
}

/** Lines/s of `watch --json [extra]` for the whole transcript appended at once (`<store>` in `extra`: a directory in the run's temp dir), by wall and by CPU time. */
async function throughput(extra: string[]): Promise<{ wall: number; cpu: number }> {
  const dir = mkdtempSync(path.join(tmpdir(), 'rxslice-live-bench-'));
  const watched = path.join(dir, 'watched');
  mkdirSync(watched);
  const file = path.join(watched, 'bench.jsonl');
  writeFileSync(file, '');
  const watch = startWatch(watched, ['--json', ...extra.map((a) => (a === '<store>' ? path.join(dir, 'store') : a))]);
  let t0 = 0;
  let cpu0 = 0;
  const done = new Promise<{ ms: number; cpu: number }>((resolve) => {
    onLines(watch, 'stdout', (line) => {
      const record = JSON.parse(line) as { type: string; lines?: number };
      if (record.type === 'notice' && t0 === 0 && /watching/.test(line)) {
        cpu0 = childCpuMs(watch.pid);
        t0 = performance.now();
        appendFileSync(file, lines.join(''));
      }
      if (record.type === 'update' && record.lines === lines.length) resolve({ ms: performance.now() - t0, cpu: childCpuMs(watch.pid) - cpu0 });
    });
  });
  const { ms, cpu } = await done;
  await stop(watch);
  rmSync(dir, { recursive: true, force: true });
  return { wall: lines.length / (ms / 1000), cpu: lines.length / (cpu / 1000) };
}

const percentile = (sorted: number[], p: number): number => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] as number;

/** Append-to-visible delays (ms) of `count` lines written `GAP_MS` apart. */
async function delays(count: number): Promise<number[]> {
  const dir = mkdtempSync(path.join(tmpdir(), 'rxslice-live-bench-'));
  const file = path.join(dir, 'bench.jsonl');
  writeFileSync(file, lines[0]!);
  const watch = startWatch(dir, ['--inspect', '--port', '0']);
  const url = await new Promise<string>((resolve) => onLines(watch, 'stderr', (l) => /live inspector at (\S+)/.exec(l)?.[1] && resolve(/live inspector at (\S+)/.exec(l)![1]!)));
  const get = async <T>(p: string): Promise<T> => (await fetch(new URL(p, url))).json() as Promise<T>;
  // Wait for the first line, so the session exists.
  for (let i = 0; i < 200 && (await get<unknown[]>('/api/sessions')).length === 0; i++) await new Promise((r) => setTimeout(r, 25));
  const ends: number[] = []; // byte offset after line i (of the appended ones)
  const appendedAt: number[] = [];
  const seenAt: (number | undefined)[] = [];
  let offset = Buffer.byteLength(lines[0]!);
  const stream = await fetch(new URL('/api/stream', url));
  const reader = stream.body!.getReader();
  const decoder = new TextDecoder();
  let refreshing = false;
  let again = false;
  let total = 0;
  const refresh = async (): Promise<void> => {
    if (refreshing) {
      again = true;
      return;
    }
    refreshing = true;
    do {
      again = false;
      // As the page: the summary, then the tail page of the list.
      const summary = await get<{ lastSeq: number; size: number }>('/api/summary');
      await get(`/api/events?offset=${Math.max(0, Math.floor((total - 1) / 200) * 200)}&limit=200`);
      total = summary.size;
      const last = await get<{ event: { type: string; payload: { offset?: number } } }>(`/api/envelope?seq=${summary.lastSeq}`);
      const applied = last.event.type === 'watch/lineRead' ? (last.event.payload.offset ?? 0) : 0;
      const now = performance.now();
      for (let i = 0; i < ends.length; i++) if (seenAt[i] === undefined && (ends[i] as number) <= applied) seenAt[i] = now;
    } while (again);
    refreshing = false;
  };
  void (async () => {
    let text = '';
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      text += decoder.decode(value);
      const messages = text.split('\n\n');
      text = messages.pop() ?? '';
      if (messages.some((m) => m.startsWith('event: events'))) void refresh();
    }
  })();
  for (let i = 1; i <= count && i < lines.length; i++) {
    const line = lines[i]!;
    offset += Buffer.byteLength(line);
    ends.push(offset);
    appendedAt.push(performance.now());
    appendFileSync(file, line);
    await new Promise((r) => setTimeout(r, GAP_MS));
  }
  for (let i = 0; i < 400 && seenAt.some((s) => s === undefined); i++) await new Promise((r) => setTimeout(r, 25));
  await reader.cancel();
  await stop(watch);
  rmSync(dir, { recursive: true, force: true });
  return seenAt.map((s, i) => (s === undefined ? Infinity : s - (appendedAt[i] as number)));
}

const fmt = (n: number, digits = 0): string => n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
console.log(`live-watch: ${lines.length.toLocaleString('en-US')} lines (${fmt(Buffer.byteLength(lines.join('')) / 1e6, 1)} MB) of ${path.basename(SOURCE)}`);
const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
for (const [name, extra] of [
  ['watch --json', [] as string[]],
  ['watch --json --store', ['--store', '<store>']],
  ['watch --json --inspect', ['--inspect', '--port', '0']],
] as const) {
  const runs: { wall: number; cpu: number }[] = [];
  for (let round = 0; round < ROUNDS; round++) runs.push(await throughput([...extra]));
  const walls = runs.map((r) => r.wall);
  console.log(
    `throughput  ${name.padEnd(24)} ${fmt(median(walls))} lines/s (median of ${ROUNDS}; ${walls.map((r) => fmt(r)).join(', ')}); by the watch's CPU time ${fmt(median(runs.map((r) => r.cpu)))} lines/s`,
  );
}
if (DELAY_LINES <= 0) process.exit(0);
const d = (await delays(DELAY_LINES)).sort((a, b) => a - b);
console.log(
  `delay       append → visible in the page (SSE + page fetches), ${d.length} lines ${GAP_MS} ms apart: p50 ${fmt(percentile(d, 50), 1)} ms, p99 ${fmt(percentile(d, 99), 1)} ms, max ${fmt(d.at(-1)!, 1)} ms` +
    (d.some((x) => x === Infinity) ? ` (${d.filter((x) => x === Infinity).length} never seen)` : ''),
);
