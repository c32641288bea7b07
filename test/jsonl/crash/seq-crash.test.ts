import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSession } from '../../../src/index';
import { jsonl, readRecording, type JsonlFsync } from '../../../src/jsonl/index';
import { onLines } from '../../child-lines';
import { bundleChild } from './crash-harness';
import { SEQ_CRASH_SLICES } from './seq-crash-slices';

// Issue 37: a SIGKILL after events that stored nothing must not let the next run number an event
// with a seq that a flight recording of the killed run already holds. Each loop starts a child
// (jsonl storage, a flight recorder writing every envelope before dispatch returns, 9 events in 10
// storing nothing), kills it at a random instant, and checks the directory against the recording.
const LOOPS = Number(process.env['RXSLICE_SEQ_CRASH_LOOPS'] ?? 12);
let child: string;
const dirs: string[] = [];
beforeAll(async () => {
  child = await bundleChild('seq-crash-child.ts');
}, 60_000);
afterAll(() => {
  rmSync(dirname(child), { recursive: true, force: true });
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/**
 * Runs the child on `dir` until it acknowledged `events` dispatches of this run (or exited), lets
 * it run `runMs` more, SIGKILLs it; resolves with its first line and the last seq it acknowledged.
 */
async function killedRun(dir: string, fsync: JsonlFsync, recording: string, events: number, runMs: number): Promise<{ first: string; acked: number }> {
  const proc = spawn(process.execPath, [child, dir, fsync, recording], { stdio: ['ignore', 'pipe', 'inherit'] });
  let first: string | undefined;
  let acks = 0;
  let acked = 0;
  const enough = new Promise<void>((resolve) => {
    onLines(proc.stdout, (line) => {
      first ??= line;
      const m = /^ack (\d+)$/.exec(line);
      if (m !== null) {
        acked = Number(m[1]);
        if (++acks >= events) resolve();
      }
    });
    proc.on('close', () => resolve());
  });
  const exited = new Promise<void>((r) => proc.on('close', () => r()));
  await enough;
  await sleep(runMs);
  proc.kill('SIGKILL');
  await exited;
  return { first: first ?? '', acked };
}

describe('seq after SIGKILL (events that stored nothing, flight recorder)', () => {
  it(`${LOOPS} kills: every recorded seq is at or below the reopened lastSeq, and the recordings of all runs hold each seq once, increasing`, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rxslice-seq-crash-'));
    dirs.push(dir);
    const recorded: number[] = [];
    const problems: string[] = [];
    for (let i = 0; i < LOOPS; i++) {
      const fsync = (['never', 'batch', 'always'] as const)[i % 3] as JsonlFsync;
      const recording = join(dir, `run-${i}.rec.jsonl`);
      // At least 5 events per run (most of them storing nothing), then a kill at a random instant.
      const run = await killedRun(dir, fsync, recording, 5 + Math.floor(Math.random() * 30), Math.random() * 20);
      if (!run.first.startsWith('ready')) problems.push(`loop ${i}: child said ${JSON.stringify(run.first)}`);
      const reopened = createSession({ slices: SEQ_CRASH_SLICES, storage: jsonl({ dir, fsync: 'never' }), validation: 'off' });
      const lastSeq = reopened.lastSeq;
      reopened.dispose();
      if (run.acked > lastSeq) problems.push(`loop ${i} (${fsync}): dispatch returned seq ${run.acked}, the reopened journal holds only ${lastSeq}`);
      if (!existsSync(recording)) continue;
      const seqs = readRecording(recording, { slices: SEQ_CRASH_SLICES }).envelopeSeqs;
      const top = seqs.at(-1) ?? 0;
      if (top > lastSeq) problems.push(`loop ${i} (${fsync}): the recording holds seq ${top}, the reopened journal only ${lastSeq}`);
      recorded.push(...seqs);
    }
    expect(problems).toEqual([]);
    const out = recorded.filter((seq, i) => i > 0 && seq <= (recorded[i - 1] as number));
    expect(out).toEqual([]);
    // Every run recorded the events it acknowledged (each envelope is written before dispatch returns).
    expect(recorded.length).toBeGreaterThanOrEqual(5 * LOOPS);
  }, 120_000);
});
