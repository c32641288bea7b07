/**
 * CPU profile of one contender on one workload: `npx tsx bench/profile.ts <workload> [contender] [top]`
 * (contender default `rxslice`). Runs the same bundled worker as `npm run bench` under
 * `node --cpu-prof` with `NODE_ENV=production`, writes the `.cpuprofile` to bench/.tmp/ (open it
 * in Chrome DevTools or VS Code) and prints the functions with the most self time, mapped back
 * to their TypeScript source lines through the bundle's source map.
 *
 * Set `BENCH_PROFILE_NO_INLINING=1` to profile with V8's inlining off (`--max-inlined-bytecode-size=0`):
 * slower, but the self time of small functions is no longer folded into their callers.
 *
 * (Profiling under `tsx` directly is misleading: tsx compiles with esbuild's `keepNames`, which
 * adds a `__name(...)` call for every closure created at run time.)
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { SourceMap } from 'node:module';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildWorker } from './lib/worker-process';

interface ProfileNode {
  readonly id: number;
  readonly callFrame: { readonly functionName: string; readonly url: string; readonly lineNumber: number; readonly columnNumber: number };
  readonly hitCount?: number;
}
interface Profile {
  readonly nodes: readonly ProfileNode[];
  readonly samples: readonly number[];
  readonly timeDeltas: readonly number[];
}

const benchDir = dirname(fileURLToPath(import.meta.url));
const root = dirname(benchDir);
const [workload, contender = 'rxslice', topArg] = process.argv.slice(2);
if (workload === undefined) {
  console.error('Usage: npx tsx bench/profile.ts <workload id> [contender] [top N]');
  process.exit(2);
}
const top = Number(topArg ?? 30);
const dir = join(benchDir, '.tmp', `profile-${workload}-${contender}`);
rmSync(dir, { recursive: true, force: true });
mkdirSync(dir, { recursive: true });
const command = await buildWorker();
const noInlining = process.env['BENCH_PROFILE_NO_INLINING'] === '1' ? ['--max-inlined-bytecode-size=0'] : [];
const run = spawnSync(process.execPath, ['--cpu-prof', `--cpu-prof-dir=${dir}`, ...noInlining, ...command.args(workload), workload, contender], {
  env: { ...process.env, NODE_ENV: 'production' },
  encoding: 'utf8',
});
process.stdout.write(run.stdout);
process.stderr.write(run.stderr);
const file = readdirSync(dir).find((f) => f.endsWith('.cpuprofile'));
if (file === undefined) throw new Error(`No profile written in ${dir}.`);
const profile = JSON.parse(readFileSync(join(dir, file), 'utf8')) as Profile;

// Self time per node from the samples, then per function (name + file + line).
const selfUs = new Map<number, number>();
profile.samples.forEach((id, i) => selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));
const maps = new Map<string, SourceMap | undefined>();
const sourceMapOf = (path: string): SourceMap | undefined => {
  if (!maps.has(path)) {
    try {
      maps.set(path, new SourceMap(JSON.parse(readFileSync(`${path}.map`, 'utf8'))));
    } catch {
      maps.set(path, undefined);
    }
  }
  return maps.get(path);
};
/** `file:line` of a call frame, through the bundle's source map when there is one. */
function locate(url: string, line: number, column: number): string {
  if (!url.startsWith('file://')) return url || '(native)';
  const path = fileURLToPath(url);
  const entry = sourceMapOf(path)?.findEntry(line, column) as { originalSource?: string; originalLine?: number } | undefined;
  if (entry?.originalSource !== undefined && entry.originalLine !== undefined) {
    const source = entry.originalSource.startsWith('file://') ? fileURLToPath(entry.originalSource) : resolve(dirname(path), entry.originalSource);
    return `${relative(root, source)}:${entry.originalLine + 1}`;
  }
  return `${relative(root, path)}:${line + 1}`;
}

const byFunction = new Map<string, number>();
let total = 0;
for (const node of profile.nodes) {
  const us = selfUs.get(node.id) ?? 0;
  total += us;
  const { functionName, url, lineNumber, columnNumber } = node.callFrame;
  const key = `${functionName || '(anonymous)'}  ${locate(url, lineNumber, columnNumber)}`;
  byFunction.set(key, (byFunction.get(key) ?? 0) + us);
}
console.log(`\nProfile: ${relative(root, join(dir, file))} — ${(total / 1000).toFixed(0)} ms sampled. Top ${top} by self time:`);
for (const [key, us] of [...byFunction].sort((a, b) => b[1] - a[1]).slice(0, top)) {
  console.log(`${((us / total) * 100).toFixed(1).padStart(5)}%  ${(us / 1000).toFixed(0).padStart(6)} ms  ${key}`);
}
