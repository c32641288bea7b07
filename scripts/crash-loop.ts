// The long crash run (issue 10): `npm run crash:long -- [--loops N] [--lock-every K]`.
// Kills a child writer with SIGKILL at random instants N times (default 10,000), every K-th loop
// with four processes competing for the lock (default 20), verifying every reopen (see
// test/jsonl/crash/crash-harness.ts), and prints the figures (progress every 100 loops).
import { rmSync } from 'node:fs';
import { dirname } from 'node:path';
import { bundleChild, CrashRun } from '../test/jsonl/crash/crash-harness';

const arg = (name: string, fallback: number): number => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
};

async function main(): Promise<void> {
  const loops = arg('loops', 10_000);
  const lockEvery = arg('lock-every', 20);
  const child = await bundleChild();
  const run = new CrashRun(child);
  const started = Date.now();
  const print = (label: string): void => console.log(`${label} ${JSON.stringify({ ...run.stats, seconds: Math.round((Date.now() - started) / 1000) })}`);
  try {
    for (let i = 1; i <= loops; i++) {
      if (lockEvery > 0 && i % lockEvery === 0) await run.lockRound();
      else await run.loop();
      if (i % 100 === 0) print(`loop ${i}/${loops}`);
    }
  } finally {
    print('final');
    rmSync(dirname(child), { recursive: true, force: true });
    rmSync(run.dir, { recursive: true, force: true });
  }
  const s = run.stats;
  const bad = s.midFileCorruption + s.seqGaps + s.lostAcked + s.stateMismatch + s.lockViolations + s.childErrors;
  process.exitCode = bad === 0 ? 0 : 1;
}

void main();
