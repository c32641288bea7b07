import { rmSync } from 'node:fs';
import { dirname } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundleChild, CrashRun } from './crash-harness';

// Child processes append multi-slice events through a real session on a jsonl() directory and
// are killed with SIGKILL at random instants; every reopen is checked (see CrashRun.verify).
// `npm run crash:long` runs the same loops 10,000 times.
// CI-sized by default (each loop starts a Node process); RXSLICE_CRASH_LOOPS / RXSLICE_CRASH_ROUNDS raise it.
const LOOPS = Number(process.env['RXSLICE_CRASH_LOOPS'] ?? 48);
const ROUNDS = Number(process.env['RXSLICE_CRASH_ROUNDS'] ?? 4);
const STORE_LOOPS = Math.max(2, Math.ceil(LOOPS / 3));
let child: string;
const runs: CrashRun[] = [];
beforeAll(async () => {
  child = await bundleChild();
}, 60_000);
afterAll(() => {
  rmSync(dirname(child), { recursive: true, force: true });
  for (const r of runs) rmSync(r.dir, { recursive: true, force: true });
});

/** Runs `loops` kill-and-recover loops of `run`, then checks the suite's guarantees on its stats. */
async function killLoops(run: CrashRun, loops: number): Promise<void> {
  runs.push(run);
  for (let i = 0; i < loops; i++) await run.loop();
  const s = run.stats;
  expect({ midFileCorruption: s.midFileCorruption, seqGaps: s.seqGaps, lostAcked: s.lostAcked, stateMismatch: s.stateMismatch, childErrors: s.childErrors }).toEqual({
    midFileCorruption: 0,
    seqGaps: 0,
    lostAcked: 0,
    stateMismatch: 0,
    childErrors: 0,
  });
  expect(s.events).toBeGreaterThan(loops);
  expect(s.compactions).toBeGreaterThan(0);
}

describe('crash suite (SIGKILL at random instants)', () => {
  it(`one writer, ${LOOPS} kills: no mid-file corruption, no seq gap, no acknowledged event lost, state equals a committed prefix`, async () => {
    await killLoops(new CrashRun(child), LOOPS);
  }, 120_000);

  // The store (createStore: no snapshot layer) on the same files: its writers killed the same way;
  // each recovery opened alternately by a store and by a session (the files are the same format).
  it(`createStore writers, ${STORE_LOOPS} kills, reopened alternately by createStore and createSession: the same guarantees`, async () => {
    await killLoops(new CrashRun(child, 16_384, Math.random, 'store', (loop) => (loop % 2 === 0 ? 'session' : 'store')), STORE_LOOPS);
  }, 120_000);

  it(`four processes competing for the lock, ${ROUNDS} rounds: exactly one opens each time; the directory stays consistent`, async () => {
    const run = new CrashRun(child);
    runs.push(run);
    for (let i = 0; i < ROUNDS; i++) await run.lockRound();
    const s = run.stats;
    expect({ lockViolations: s.lockViolations, midFileCorruption: s.midFileCorruption, seqGaps: s.seqGaps, lostAcked: s.lostAcked, stateMismatch: s.stateMismatch, childErrors: s.childErrors }).toEqual({
      lockViolations: 0,
      midFileCorruption: 0,
      seqGaps: 0,
      lostAcked: 0,
      stateMismatch: 0,
      childErrors: 0,
    });
    expect(s.events).toBeGreaterThan(0);
  }, 120_000);
});
