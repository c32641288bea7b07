import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { JsonlFsync } from '../../src/jsonl/index';
import { onLines } from '../child-lines';

/** Bundles the kill child once (esbuild, CommonJS for Node 20) and returns the file to run with `node`. */
export async function bundleKillChild(): Promise<string> {
  const { build } = await import('esbuild');
  const out = join(mkdtempSync(join(tmpdir(), 'rxslice-seams-child-')), 'kill-child.cjs');
  // Minified: each child spends less of its start parsing (the machine has 2 cores for many children).
  await build({ entryPoints: [join(dirname(fileURLToPath(import.meta.url)), 'kill-child.ts')], bundle: true, minify: true, platform: 'node', format: 'cjs', target: 'node20', outfile: out, logLevel: 'error' });
  return out;
}

export interface KillRun {
  readonly lines: string[];
  readonly signal: NodeJS.Signals | null;
  readonly code: number | null;
  /** The highest seq the child acknowledged before it died. */
  readonly acked: number;
}

/** Children alive at once, over every cell of the file (2 cores). */
const MAX_CHILDREN = 4;
let alive = 0;
const waiting: (() => void)[] = [];
async function slot<T>(job: () => Promise<T>): Promise<T> {
  while (alive >= MAX_CHILDREN) await new Promise<void>((r) => waiting.push(r));
  alive++;
  try {
    return await job();
  } finally {
    alive--;
    waiting.shift()?.();
  }
}

/** Runs the child on `root` for workload `name`; it SIGKILLs itself after journal record `k` (0: never). */
export function runKillChild(child: string, name: string, root: string, fsync: JsonlFsync, k: number): Promise<KillRun> {
  return slot(() => spawnKillChild(child, name, root, fsync, k));
}

/**
 * Starts the child in hold mode: it runs the workload on `root`, prints `held <lastSeq> <pid>`
 * and keeps the directory locked until `proc` is killed. Resolves once it holds it.
 */
export async function holdingChild(child: string, name: string, root: string, fsync: JsonlFsync): Promise<{ proc: ChildProcess; lines: string[]; exited: Promise<void> }> {
  const proc = spawn(process.execPath, [child, name, root, fsync, '-1'], { stdio: ['pipe', 'pipe', 'inherit'] });
  const lines: string[] = [];
  const exited = new Promise<void>((r) => proc.on('close', () => r()));
  await new Promise<void>((resolve) => {
    onLines(proc.stdout, (line) => {
      lines.push(line);
      if (line.startsWith('held') || line.startsWith('error')) resolve();
    });
    void exited.then(() => resolve());
  });
  return { proc, lines, exited };
}

function spawnKillChild(child: string, name: string, root: string, fsync: JsonlFsync, k: number): Promise<KillRun> {
  const proc = spawn(process.execPath, [child, name, root, fsync, String(k)], { stdio: ['ignore', 'pipe', 'inherit'] });
  const lines: string[] = [];
  onLines(proc.stdout, (line) => lines.push(line));
  return new Promise((resolve) =>
    proc.on('close', (code, signal) => {
      let acked = 0;
      for (const l of lines) {
        const m = /^(?:ready|ack|done) (\d+)/.exec(l);
        if (m !== null) acked = Math.max(acked, Number(m[1]));
      }
      resolve({ lines, signal, code, acked });
    }),
  );
}

/** Runs `jobs` with at most `limit` at a time; resolves with their results in order. */
export async function pool<T>(jobs: readonly (() => Promise<T>)[], limit: number): Promise<T[]> {
  const out: T[] = new Array(jobs.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < jobs.length) {
      const i = next++;
      out[i] = await (jobs[i] as () => Promise<T>)();
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, jobs.length) }, worker));
  return out;
}
