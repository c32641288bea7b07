/**
 * Workload 24 — `rxslice watch` catching up (issue 36 item 5). Each measurement starts the real
 * command (`bin/rxslice.mjs watch`) in a child process and times it through the file system, as
 * a user sees it:
 *
 * - **24w** (`watch-catch-up`): the bundled 1,512-line, 3.2 MB transcript appended at once to an
 *   empty watched file; the time from the append to the `--json` `update` record whose `lines`
 *   reaches the file's line count. Contenders: `watch --json`, `--json --store <tmp>` (every
 *   event durable, the cursor exact under kill -9), `--json --inspect` (the live inspector's
 *   per-session flight recording counted). Unit: µs per line (lines/s shown beside it).
 * - **24d** (`watch-directory`): a directory of 200 transcripts (every other one a copy of one of the two
 *   bundled 3 MB ones, the rest the small ones, about 300 MB in a temp dir) watched from the start with `--json`; the time from the
 *   spawn to the first `update` record (the first rows of the table), to the first `progress`
 *   record, and to the last file caught up. Unit: ms to the first update.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { appendFileSync, copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import { childCpuMs } from '../lib/child-cpu';
import { check, CLOCK, type Measurement } from '../lib/measure';

/** Wall time (ms): these runs wait for another process, whatever BENCH_CLOCK says. */
const nowMs = (): number => performance.now();
import type { Workload } from './workload';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const BIN = path.join(ROOT, 'bin/rxslice.mjs');
const DATA = path.join(ROOT, 'examples/data');
const SOURCE = path.join(DATA, 'spotter-4d5611e5-241a-462a-8d15-5122611a9569.jsonl');
/** Transcripts in the directory of 24d. */
export const DIRECTORY_FILES = 200;
/** Timed runs per measurement (each a new process); the median is reported. */
const RUNS = 3;

interface Record_ {
  readonly type: string;
  readonly lines?: number;
  readonly label?: string;
  readonly files?: number;
  readonly caughtUp?: number;
}

function startWatch(args: readonly string[]): ChildProcess {
  return spawn(process.execPath, [BIN, 'watch', ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, INIT_CWD: ROOT } });
}

function onRecords(child: ChildProcess, onRecord: (record: Record_) => void): void {
  let rest = '';
  child.stdout?.setEncoding('utf8');
  child.stdout?.on('data', (chunk: string) => {
    rest += chunk;
    const parts = rest.split('\n');
    rest = parts.pop() ?? '';
    for (const line of parts) onRecord(JSON.parse(line) as Record_);
  });
  child.stderr?.resume();
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await exited;
}

const median = (values: number[]): number => values.sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;

/** One catch-up of the whole transcript appended at once: ms from the append to the last line's update. */
async function catchUp(extra: readonly string[]): Promise<{ ms: number; cpuMs: number; lines: number }> {
  const dir = mkdtempSync(path.join(tmpdir(), 'rxslice-bench-watch-'));
  const watched = path.join(dir, 'watched');
  mkdirSync(watched);
  const file = path.join(watched, 'bench.jsonl');
  writeFileSync(file, '');
  const text = readFileSync(SOURCE, 'utf8');
  const lines = text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
  const args = [watched, '--json', ...extra.map((a) => (a === '<store>' ? path.join(dir, 'store') : a))];
  const child = startWatch(args);
  try {
    const { ms, cpuMs } = await new Promise<{ ms: number; cpuMs: number }>((resolve, reject) => {
      let t0 = 0;
      let cpu0 = 0;
      child.once('exit', (code) => reject(new Error(`rxslice watch exited (${String(code)}) before the last line`)));
      onRecords(child, (record) => {
        if (record.type === 'notice' && t0 === 0 && record.label === 'bench') {
          cpu0 = childCpuMs(child.pid);
          t0 = nowMs();
          appendFileSync(file, text);
        }
        if (record.type === 'update' && record.lines === lines) resolve({ ms: nowMs() - t0, cpuMs: childCpuMs(child.pid) - cpu0 });
      });
    });
    return { ms, cpuMs, lines };
  } finally {
    await stop(child);
    rmSync(dir, { recursive: true, force: true });
  }
}

const catchUpImpl =
  (extra: readonly string[]) =>
  async (): Promise<Measurement> => {
    await catchUp(extra); // warm-up: the disk cache, tsx's transform cache
    const runs: { ms: number; cpuMs: number; lines: number }[] = [];
    for (let i = 0; i < RUNS; i++) runs.push(await catchUp(extra));
    const wall = median(runs.map((r) => r.ms));
    const cpuMs = median(runs.map((r) => r.cpuMs));
    // BENCH_CLOCK=cpu: the headline is the watch process's CPU time (its wall time waits for cores).
    const ms = CLOCK === 'cpu' && Number.isFinite(cpuMs) ? cpuMs : wall;
    const lines = runs[0]!.lines;
    return { value: (ms * 1000) / lines, extra: { linesPerSecond: (lines / ms) * 1000, ms: wall, cpuMs, ops: lines } };
  };

export const watchCatchUpWorkload: Workload = {
  id: 'watch-catch-up',
  number: '24w',
  title: '`rxslice watch` catching up: the bundled 1,512-line transcript appended at once to a watched file',
  unit: 'µs/line',
  maxRounds: 3,
  columns: [
    { key: 'linesPerSecond', label: 'lines/s', digits: 0 },
    { key: 'ms', label: 'wall ms', digits: 0 },
    { key: 'cpuMs', label: 'CPU ms of the watch', digits: 0 },
  ],
  notes: [
    `Each figure: the median of ${RUNS} runs, each a new \`rxslice watch\` process (after one warm-up process), from the append of the whole 3.2 MB transcript to the \`--json\` \`update\` record whose \`lines\` reaches 1,512.`,
    'With `BENCH_CLOCK=cpu` the headline (and lines/s) is the watch process\'s CPU time over the same span (user + system, all its threads, from /proc at 10 ms resolution), which a loaded machine moves far less than the wall time; the `CPU ms` column shows it either way.',
    'The goal (issue 36): ≥ 40,000 lines/s (≤ 25 µs/line) without a store, ≥ 10,000 lines/s (≤ 100 µs/line) with `--store` (each event durable, the cursor exact under kill -9). `--inspect` adds the live inspector: each session\'s flight recording.',
  ],
  contenders: {
    rxslice: catchUpImpl([]),
    'rxslice-store': catchUpImpl(['--store', '<store>']),
    'rxslice-inspect': catchUpImpl(['--inspect', '--port', '0']),
  },
};

/** The directory of 24d: the bundled transcripts copied round robin until {@link DIRECTORY_FILES}. */
function makeDirectory(): { dir: string; bytes: number; lines: number } {
  const dir = mkdtempSync(path.join(tmpdir(), 'rxslice-bench-watchdir-'));
  const all = readdirSync(DATA).filter((f) => f.endsWith('.jsonl')).sort();
  const large = all.filter((f) => statSync(path.join(DATA, f)).size > 1e6);
  const small = all.filter((f) => !large.includes(f));
  check(large.length > 0 && small.length > 0, `no transcripts in ${DATA}`);
  // Every other file is one of the large ones (~3 MB each): about 300 MB in all.
  let bytes = 0;
  let lines = 0;
  for (let i = 0; i < DIRECTORY_FILES; i++) {
    const name = i % 2 === 0 ? large[(i / 2) % large.length]! : small[((i - 1) / 2) % small.length]!;
    const target = path.join(dir, `t${String(i).padStart(3, '0')}-${name}`);
    copyFileSync(path.join(DATA, name), target);
    bytes += statSync(target).size;
    const text = readFileSync(target, 'utf8');
    lines += text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
  }
  return { dir, bytes, lines };
}

/**
 * Ms from the spawn to the first update, the first progress record and the last file caught up;
 * and the watch process's CPU time (ms) from its first notice to the last file caught up.
 */
async function directory(dir: string): Promise<{ firstNotice: number; firstUpdate: number; firstProgress: number; caughtUp: number; catchUpCpuMs: number }> {
  const t0 = nowMs();
  const child = startWatch([dir, '--json']);
  try {
    return await new Promise((resolve, reject) => {
      let firstNotice = NaN;
      let firstUpdate = NaN;
      let firstProgress = NaN;
      let cpu0 = NaN;
      child.once('exit', (code) => reject(new Error(`rxslice watch exited (${String(code)}) before it caught up`)));
      onRecords(child, (record) => {
        if (record.type === 'notice' && Number.isNaN(firstNotice)) {
          firstNotice = nowMs() - t0;
          cpu0 = childCpuMs(child.pid);
        }
        if (record.type === 'update' && Number.isNaN(firstUpdate)) firstUpdate = nowMs() - t0;
        if (record.type === 'progress' && Number.isNaN(firstProgress)) firstProgress = nowMs() - t0;
        if (record.type === 'progress' && record.caughtUp === record.files) resolve({ firstNotice, firstUpdate, firstProgress, caughtUp: nowMs() - t0, catchUpCpuMs: childCpuMs(child.pid) - cpu0 });
      });
    });
  } finally {
    await stop(child);
  }
}

export const watchDirectoryWorkload: Workload = {
  id: 'watch-directory',
  number: '24d',
  title: `\`rxslice watch --json\` of a directory of ${DIRECTORY_FILES} transcripts (the bundled ones copied, ~300 MB): time to the first rows`,
  unit: 'ms',
  maxRounds: 1,
  columns: [
    { key: 'afterStart', label: 'first update after the first notice (ms)', digits: 0 },
    { key: 'firstProgress', label: 'first progress (ms)', digits: 0 },
    { key: 'caughtUp', label: 'caught up (ms)', digits: 0 },
    { key: 'linesPerCpuSecond', label: 'lines/s by the watch\'s CPU time', digits: 0 },
    { key: 'megabytes', label: 'MB', digits: 0 },
  ],
  notes: [
    'From the spawn of `rxslice watch <dir> --json` (module loading included) to its first `update` record (the rows a terminal shows in its first table; also shown from its first `notice`, i.e. without the process start and module loading, which run the TypeScript sources through tsx in a checkout), to its first `progress` record, and to the `progress` record that says every file is caught up. One process per measurement.',
    'The goal (issue 36): the first table within 2 s, and a progress line while the watch catches up.',
    'lines/s by CPU time: the lines of the directory over the watch process\'s CPU time (user + system, all its threads, from /proc) from its first notice to the last file caught up: the catch-up rate a loaded machine hides in the wall time.',
  ],
  contenders: {
    rxslice: async (): Promise<Measurement> => {
      const { dir, bytes, lines } = makeDirectory();
      try {
        const r = await directory(dir);
        return {
          value: r.firstUpdate,
          extra: { afterStart: r.firstUpdate - r.firstNotice, firstProgress: r.firstProgress, caughtUp: r.caughtUp, linesPerCpuSecond: (lines / r.catchUpCpuMs) * 1000, megabytes: bytes / 1e6, ops: DIRECTORY_FILES },
        };
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  },
};
