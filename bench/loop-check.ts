/**
 * `npx tsx bench/loop-check.ts [pairs]`: is the harness's timed loop as fast as a hand-written
 * one? Runs, alternately in fresh processes, the harness's worker for workload 1 × rxslice and
 * `bench/hand/dispatch-rxslice.ts` (the same session and events, its own loop, no harness), both
 * bundled the same way, `pairs` times (default 5), and prints both medians and their ratio. A
 * ratio near 1 says the harness adds nothing: its loop is not shared with (or made megamorphic
 * by) another contender's code.
 */
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { median } from './lib/stats';
import { buildWorker, runWorker } from './lib/worker-process';

const benchDir = dirname(fileURLToPath(import.meta.url));
const pairs = Number(process.argv[2] ?? 5);
const esbuild = await import('esbuild');
const handFile = join(benchDir, '.tmp', 'hand', 'dispatch-rxslice.mjs');
await esbuild.build({
  entryPoints: [join(benchDir, 'hand', 'dispatch-rxslice.ts')],
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  packages: 'external',
  outfile: handFile,
  logLevel: 'error',
});
const command = await buildWorker();
const harness: number[] = [];
const hand: number[] = [];
for (let i = 0; i < pairs; i++) {
  const outcome = await runWorker(command, 'dispatch', 'rxslice', 180_000);
  if (outcome.kind !== 'ok') throw new Error(`harness worker: ${JSON.stringify(outcome)}`);
  harness.push(outcome.value);
  const run = spawnSync(process.execPath, [handFile], { env: { ...process.env, NODE_ENV: 'production' }, encoding: 'utf8' });
  const line = run.stdout.split('\n').find((l) => l.startsWith('HAND_RESULT '));
  if (line === undefined) throw new Error(`hand-written loop: ${run.stderr}`);
  hand.push(Number(line.slice('HAND_RESULT '.length)));
  console.log(`pair ${i + 1}: harness ${harness[i]!.toFixed(1)} ns/dispatch, hand-written ${hand[i]!.toFixed(1)} ns/dispatch`);
}
console.log(`median: harness ${median(harness).toFixed(1)}, hand-written ${median(hand).toFixed(1)}, harness / hand-written ${(median(harness) / median(hand)).toFixed(2)}×`);
