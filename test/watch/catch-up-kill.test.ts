// A durable watch killed in the middle of a catch-up, at random points (seeded), reopened and killed
// again: once it finishes, its store equals a replay of the file, no line applied twice, none lost.
// Two kinds of kill: a SIGKILL from outside after a random delay (it lands anywhere: opening the
// store, parsing, reducing, writing), and the child SIGKILLing itself after writing a random
// prefix of the bytes it writes, as a crash in the middle of a run's write would leave it (the
// run's records cut after any of them: the cursor must count the events of the lines it has not
// closed yet exactly).
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundleChild, compareWithReplay, startChild } from './watch-harness';

const data = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'examples', 'data');
// 1,512 lines: six runs of 256 lines (the last shorter).
const source = join(data, 'spotter-4d5611e5-241a-462a-8d15-5122611a9569.jsonl');

let child: string;
let root: string;
beforeAll(async () => {
  child = await bundleChild('catch-up-child');
  root = mkdtempSync(join(tmpdir(), 'rxslice-catch-up-kill-'));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** mulberry32: the test's random points, reproducible from its seed. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface Run {
  /** What the child printed (`open <offset> <committed>`, `done <lines> <bytes>`). */
  readonly lines: readonly string[];
  readonly signal: NodeJS.Signals | null;
}

/** Runs the child on `file` and `store`: torn after `tear` bytes written, or SIGKILLed after `killAfterMs`, or to its end. */
async function run(file: string, store: string, kill: { tear?: number; killAfterMs?: number } = {}): Promise<Run> {
  const c = startChild([child, file, store, ...(kill.tear === undefined ? [] : [String(kill.tear)])]);
  const timer = kill.killAfterMs === undefined ? undefined : setTimeout(() => c.proc.kill('SIGKILL'), kill.killAfterMs);
  await c.exited;
  clearTimeout(timer);
  return { lines: c.lines, signal: c.proc.signalCode };
}

const opened = (r: Run): { offset: number; committed: number } | undefined => {
  const m = /^open (\d+) (\d+)$/.exec(r.lines.find((l) => l.startsWith('open ')) ?? '');
  return m === null ? undefined : { offset: Number(m[1]), committed: Number(m[2]) };
};

describe('rxslice watch --store, killed in the middle of a catch-up', () => {
  it('reopens at its cursor and ends equal to a replay of the file, whatever the kill points', async () => {
    const seed = 0x36b;
    const next = random(seed);
    const file = join(root, 't.jsonl');
    copyFileSync(source, file);
    // An uninterrupted catch-up: how many bytes it writes, and how long it takes.
    const t0 = performance.now();
    const whole = await run(file, join(root, 'whole'));
    const wholeMs = performance.now() - t0;
    const done = /^done (\d+) (\d+)$/.exec(whole.lines.at(-1) ?? '');
    expect(done?.[1]).toBe('1512');
    const bytes = Number(done?.[2]);
    const c0 = compareWithReplay(file, join(root, 'whole'));
    expect(c0.storedState).toEqual(c0.replayState);

    let midRun = 0;
    for (let round = 0; round < 3; round++) {
      const store = join(root, `store-${round}`);
      const what = { seed, round };
      // Two torn writes at random bytes (the second counted from the reopened watch's own writes:
      // past them, it finishes), then a SIGKILL from outside at a random time, then a run to the end.
      const runs: Run[] = [];
      for (const tear of [Math.floor(next() * bytes), Math.floor(next() * bytes * 0.5)]) {
        const r = await run(file, store, { tear });
        runs.push(r);
        const finished = r.lines.at(-1)?.startsWith('done ') === true;
        expect({ ...what, tear, ended: r.signal ?? finished, printed: r.lines }).toEqual({ ...what, tear, ended: finished || 'SIGKILL', printed: r.lines });
      }
      runs.push(await run(file, store, { killAfterMs: Math.floor(next() * wholeMs) }));
      const last = await run(file, store);
      runs.push(last);
      expect({ ...what, done: last.lines.at(-1)?.startsWith('done ') }).toEqual({ ...what, done: true });
      midRun += runs.filter((r) => (opened(r)?.committed ?? 0) > 0).length;
      const c = compareWithReplay(file, store);
      expect({ ...what, offset: c.cursor.offset, lines: c.cursor.lines, events: c.cursor.events, refused: c.cursor.refused }).toEqual({
        ...what,
        offset: c.fileBytes,
        lines: c.replay.lines,
        events: c.replay.events,
        refused: c0.cursor.refused,
      });
      expect(c.storedState).toEqual(c.replayState);
      rmSync(store, { recursive: true, force: true });
    }
    expect(midRun).toBeGreaterThan(0);
  }, 120_000);
});
