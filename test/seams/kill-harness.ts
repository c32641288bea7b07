import { spawn } from 'node:child_process';
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
  await build({ entryPoints: [join(dirname(fileURLToPath(import.meta.url)), 'kill-child.ts')], bundle: true, platform: 'node', format: 'cjs', target: 'node20', outfile: out, logLevel: 'error' });
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
