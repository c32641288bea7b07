/**
 * Builds the worker once and runs it in fresh child processes. The worker is bundled with
 * esbuild (a dependency of tsx) into `bench/.tmp/worker.mjs`, with packages left external so
 * every library loads its own published build; a child then starts in plain `node`, which
 * is several times faster than starting tsx. Without esbuild the runner falls back to
 * `node --import tsx bench/worker.ts`.
 */
import { spawn } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const BENCH_DIR = dirname(dirname(fileURLToPath(import.meta.url)));
const RESULT_PREFIX = 'BENCH_RESULT ';

/** How the runner starts a worker: the node arguments before `<workload> <contender>`. */
export interface WorkerCommand {
  readonly args: readonly string[];
  readonly description: string;
}

/** What a worker reported (or what became of it). */
export type WorkerOutcome =
  | { readonly kind: 'ok'; readonly value: number; readonly extra: Readonly<Record<string, number>>; readonly wallMs: number }
  | { readonly kind: 'unavailable'; readonly reason: string }
  | { readonly kind: 'timed-out'; readonly done: number; readonly total: number; readonly elapsedMs: number }
  | { readonly kind: 'failed'; readonly error: string };

/** Bundles `bench/worker.ts` once; returns how to start it. */
export async function buildWorker(): Promise<WorkerCommand> {
  const outfile = join(BENCH_DIR, '.tmp', 'worker.mjs');
  try {
    const esbuild = await import('esbuild');
    mkdirSync(dirname(outfile), { recursive: true });
    await esbuild.build({
      entryPoints: [join(BENCH_DIR, 'worker.ts')],
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      packages: 'external',
      sourcemap: 'linked',
      outfile,
      logLevel: 'error',
    });
    return { args: ['--expose-gc', '--enable-source-maps', outfile], description: `node ${outfile} (bundled once with esbuild)` };
  } catch (error) {
    process.stderr.write(`esbuild bundling failed (${String(error)}); falling back to tsx per worker.\n`);
    return { args: ['--import', 'tsx', '--expose-gc', join(BENCH_DIR, 'worker.ts')], description: 'node --import tsx bench/worker.ts' };
  }
}

/**
 * Runs one measurement in a fresh process with `NODE_ENV=production`, killing it after
 * `timeoutMs`. Extra node flags (e.g. `--cpu-prof`) go in `nodeFlags`.
 */
export function runWorker(
  command: WorkerCommand,
  workload: string,
  contender: string,
  timeoutMs: number,
  nodeFlags: readonly string[] = [],
): Promise<WorkerOutcome> {
  return new Promise((resolve) => {
    const started = Date.now();
    const child = spawn(process.execPath, [...nodeFlags, ...command.args, workload, contender], {
      env: { ...process.env, NODE_ENV: 'production' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      const wallMs = Date.now() - started;
      const line = stdout.split('\n').find((l) => l.startsWith(RESULT_PREFIX));
      if (line === undefined) {
        const why = signal === 'SIGKILL' ? `killed after ${timeoutMs} ms` : `exit code ${code}`;
        resolve({ kind: 'failed', error: `no result (${why}) ${stderr.trim().split('\n').slice(-3).join(' | ')}` });
        return;
      }
      const r = JSON.parse(line.slice(RESULT_PREFIX.length)) as Record<string, unknown>;
      if (r['ok'] === true) {
        resolve({ kind: 'ok', value: r['value'] as number, extra: r['extra'] as Record<string, number>, wallMs });
      } else if (typeof r['unavailable'] === 'string') {
        resolve({ kind: 'unavailable', reason: r['unavailable'] });
      } else if (r['timedOut'] === true) {
        resolve({ kind: 'timed-out', done: r['done'] as number, total: r['total'] as number, elapsedMs: r['elapsedMs'] as number });
      } else {
        resolve({ kind: 'failed', error: String(r['error']) });
      }
    });
  });
}
