import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundleSagaChild, check, runChild, ZERO, type ChildRun } from './saga-crash-harness';

// Child processes run 3-step sagas on jsonl({ fsync: 'always' }) and are SIGKILLed right after each
// committed event (every record boundary) and at random instants, then restarted on the same
// directory until all sagas ended; the saga log (a log slice fed by the saga events, journaled with
// them) and the external calls file (fsynced per call) are then checked. CI-sized by default;
// RXSLICE_SAGA_CRASH_LOOPS raises the random kills (and runs every boundary that many/20 times).
const LOOPS = Number(process.env['RXSLICE_SAGA_CRASH_LOOPS'] ?? 20);
const PLAN: readonly [string, 'ok' | 'fail'][] = [
  ['ok1', 'ok'],
  ['fail1', 'fail'],
];
const planArg = (plan: readonly [string, string][]) => plan.map(([id, k]) => `${id}:${k}`).join(',');
let child: string;
const dirs: string[] = [];
const fresh = () => {
  const d = mkdtempSync(join(tmpdir(), 'rxslice-saga-crash-'));
  dirs.push(d);
  return { dir: join(d, 'store'), calls: join(d, 'calls.log') };
};
beforeAll(async () => {
  child = await bundleSagaChild();
}, 60_000);
afterAll(() => {
  rmSync(dirname(child), { recursive: true, force: true });
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** Restarts the child (no kill) until it prints `done`; at most `max` times. */
async function finish(dir: string, calls: string, plan: string, max = 5): Promise<ChildRun[]> {
  const runs: ChildRun[] = [];
  for (let i = 0; i < max; i++) {
    const r = await runChild(child, dir, calls, plan);
    runs.push(r);
    if (r.lines.includes('done')) break;
  }
  return runs;
}

describe('saga crash suite (SIGKILL on jsonl, fsync always)', () => {
  it('an uninterrupted run records one success and one failure saga (the record boundaries to crash at)', async () => {
    const { dir, calls } = fresh();
    const r = await runChild(child, dir, calls, planArg(PLAN));
    expect(r.code).toBe(0);
    const { findings, log, callList } = check(dir, calls, PLAN);
    expect(findings).toEqual(ZERO);
    expect(log).toHaveLength(19);
    expect(callList.map((c) => `${c.kind} ${c.key}`)).toEqual([
      'run ok1/createResources',
      'run fail1/createResources',
      'run ok1/configureNetworking',
      'run fail1/configureNetworking',
      'run ok1/deployApplication',
      'run fail1/deployApplication',
      'compensate fail1/configureNetworking/compensate',
      'compensate fail1/createResources/compensate',
    ]);
  }, 60_000);

  it('killed right after each committed event (every record boundary), restarted until done: each saga ends once, no step completes twice or reruns after completion, compensations once and in reverse', async () => {
    const repeat = Math.max(1, Math.floor(LOOPS / 20));
    let kills = 0;
    for (let rep = 0; rep < repeat; rep++) {
      for (let k = 1; k < 19; k++) {
        const { dir, calls } = fresh();
        const killed = await runChild(child, dir, calls, planArg(PLAN), { killAfterEvents: k });
        expect(killed.signal, `k=${k}`).toBe('SIGKILL');
        kills++;
        const rest = await finish(dir, calls, planArg(PLAN));
        expect(rest.at(-1)?.lines, `k=${k}`).toContain('done');
        expect(check(dir, calls, PLAN).findings, `crash after event ${k}`).toEqual(ZERO);
      }
    }
    expect(kills).toBe(18 * repeat);
  }, 240_000);

  it(`killed at random instants (${LOOPS} kills, also while resuming), restarted on the same directory until done`, async () => {
    const plan: [string, 'ok' | 'fail'][] = [];
    for (let i = 0; i < 6; i++) plan.push([`r${i}`, i % 2 === 0 ? 'ok' : 'fail']);
    let kills = 0;
    while (kills < LOOPS) {
      const { dir, calls } = fresh();
      let done = false;
      for (let attempt = 0; attempt < 8 && !done; attempt++) {
        // Up to 3 kills per directory, the rest run to the end.
        const kill = attempt < 3 && kills < LOOPS;
        const r = await runChild(child, dir, calls, planArg(plan), kill ? { killAfterMs: Math.random() * 25 } : {});
        if (r.signal === 'SIGKILL') kills++;
        done = r.lines.includes('done');
      }
      expect(done).toBe(true);
      expect(check(dir, calls, plan).findings).toEqual(ZERO);
    }
    expect(kills).toBeGreaterThanOrEqual(LOOPS);
  }, 240_000);

  it('two processes started at once on a crashed directory: one opens, the other gets StorageLockedError (exit 3); each saga is resumed by exactly one process', async () => {
    for (const k of [3, 9, 14]) {
      const { dir, calls } = fresh();
      await runChild(child, dir, calls, planArg(PLAN), { killAfterEvents: k });
      // Whichever opens holds the lock after `done` until the other has exited, so the two runs
      // overlap however slowly either process starts; a safety timer releases both if neither is refused.
      let exited = 0;
      const releaseAll = () => children.forEach((c) => c.release());
      const safety = setTimeout(releaseAll, 60_000);
      const children = [0, 1].map(() => runChild(child, dir, calls, planArg(PLAN), { hold: true }));
      for (const c of children)
        void c.then(() => {
          if (++exited === 1) releaseAll();
        });
      const runs: ChildRun[] = await Promise.all(children);
      clearTimeout(safety);
      const opened = runs.filter((r) => r.lines[0]?.startsWith('ready'));
      const locked = runs.filter((r) => r.lines[0] === 'locked');
      const seen = `k=${k}: ${JSON.stringify(runs.map((r) => ({ code: r.code, first: r.lines[0] })))}`;
      expect(opened, seen).toHaveLength(1);
      expect(locked.map((r) => r.code), seen).toEqual([3]);
      expect(opened[0]?.lines, `k=${k}`).toContain('done');
      const { findings, callList } = check(dir, calls, PLAN);
      expect(findings, `k=${k}`).toEqual(ZERO);
      const lockedPid = locked[0]?.pid;
      expect(callList.filter((c) => c.pid === lockedPid), `k=${k}`).toEqual([]);
      for (const [id] of PLAN) {
        const resumers = new Set(callList.filter((c) => c.kind === 'resume' && c.key === id).map((c) => c.pid));
        expect(resumers.size, `k=${k} ${id}`).toBeLessThanOrEqual(1);
      }
      expect(callList.some((c) => c.kind === 'resume'), `k=${k}`).toBe(true);
    }
  }, 300_000);
});
