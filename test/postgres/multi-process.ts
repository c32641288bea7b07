import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { onLines } from '../child-lines';

/** Bundles shared-worker.ts once (esbuild, CommonJS for Node 20) and returns the file to run with `node`. */
export async function bundleWorker(): Promise<string> {
  const { build } = await import('esbuild');
  const out = join(mkdtempSync(join(tmpdir(), 'rxslice-shared-worker-')), 'shared-worker.cjs');
  await build({
    entryPoints: [join(dirname(fileURLToPath(import.meta.url)), 'shared-worker.ts')],
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    outfile: out,
    logLevel: 'error',
    external: ['pg-native'],
  });
  return out;
}

/** A running worker: its lines so far, and promises for the line starting with a word. */
export interface Worker {
  readonly proc: ChildProcess;
  readonly lines: string[];
  readonly exited: Promise<number | null>;
  /** Resolves with the first line that satisfies `match` (or rejects when the worker exits first). */
  line(match: (line: string) => boolean): Promise<string>;
}

export function startWorker(file: string, args: readonly (string | number)[]): Worker {
  const proc = spawn(process.execPath, [file, ...args.map(String)], { stdio: ['ignore', 'pipe', 'pipe'] });
  const lines: string[] = [];
  const watchers: { match: (l: string) => boolean; resolve: (l: string) => void; reject: (e: Error) => void }[] = [];
  let stderr = '';
  proc.stderr?.setEncoding('utf8');
  proc.stderr?.on('data', (chunk: string) => (stderr = (stderr + chunk).slice(-4_000)));
  onLines(proc.stdout, (line) => {
    lines.push(line);
    for (const w of [...watchers]) {
      if (w.match(line)) {
        watchers.splice(watchers.indexOf(w), 1);
        w.resolve(line);
      }
    }
  });
  const exited = new Promise<number | null>((resolve) =>
    proc.on('close', (code) => {
      for (const w of watchers.splice(0)) w.reject(new Error(`worker exited (${code}) before the line; last lines: ${lines.slice(-3).join(' | ')}; stderr: ${stderr}`));
      resolve(code);
    }),
  );
  return {
    proc,
    lines,
    exited,
    line(match) {
      const seen = lines.find(match);
      if (seen !== undefined) return Promise.resolve(seen);
      if (proc.exitCode !== null || proc.signalCode !== null) return Promise.reject(new Error(`worker already exited; stderr: ${stderr}`));
      return new Promise((resolve, reject) => watchers.push({ match, resolve, reject }));
    },
  };
}

/** What the log of `sessionId` holds, checked against `workers × perWorker` events. */
export async function auditLog(url: string, prefix: string, sessionId: string, workers: number, perWorker: number): Promise<{ events: number; lost: number; duplicated: number; seqGaps: number; outOfOrder: number }> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows: all } = await client.query<{ seq: string; type: string; payload: { w: number; n: number } }>(`SELECT seq, type, payload FROM "${prefix}_events" WHERE session_id = $1 ORDER BY seq`, [sessionId]);
    const seen = new Map<string, number>();
    let seqGaps = 0;
    let outOfOrder = 0;
    const lastN = new Map<number, number>();
    all.forEach((r, i) => {
      if (Number(r.seq) !== i + 1) seqGaps++;
    });
    const rows = all.filter((r) => r.type === 'load/wrote');
    rows.forEach((r) => {
      const key = `${r.payload.w}/${r.payload.n}`;
      seen.set(key, (seen.get(key) ?? 0) + 1);
      // Each worker's events appear in its dispatch order.
      if ((lastN.get(r.payload.w) ?? -1) >= r.payload.n) outOfOrder++;
      lastN.set(r.payload.w, r.payload.n);
    });
    let lost = 0;
    for (let w = 0; w < workers; w++) for (let n = 0; n < perWorker; n++) if (!seen.has(`${w}/${n}`)) lost++;
    const duplicated = [...seen.values()].reduce((sum, c) => sum + (c - 1), 0);
    return { events: rows.length, lost, duplicated, seqGaps, outOfOrder };
  } finally {
    await client.end();
  }
}
