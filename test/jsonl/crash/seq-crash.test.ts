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

/** Runs the child on `dir` until it is open, lets it run `runMs`, SIGKILLs it; resolves with its first line. */
async function killedRun(dir: string, fsync: JsonlFsync, recording: string, runMs: number): Promise<string> {
  const proc = spawn(process.execPath, [child, dir, fsync, recording], { stdio: ['ignore', 'pipe', 'inherit'] });
  const first = new Promise<string>((resolve) => {
    onLines(proc.stdout, resolve);
    proc.on('close', () => resolve(''));
  });
  const exited = new Promise<void>((r) => proc.on('close', () => r()));
  const line = await first;
  await sleep(runMs);
  proc.kill('SIGKILL');
  await exited;
  return line;
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
      const line = await killedRun(dir, fsync, recording, 5 + Math.random() * 60);
      if (!line.startsWith('ready')) problems.push(`loop ${i}: child said ${JSON.stringify(line)}`);
      const reopened = createSession({ slices: SEQ_CRASH_SLICES, storage: jsonl({ dir, fsync: 'never' }), validation: 'off' });
      const lastSeq = reopened.lastSeq;
      reopened.dispose();
      if (!existsSync(recording)) continue;
      const seqs = readRecording(recording, { slices: SEQ_CRASH_SLICES }).envelopeSeqs;
      const top = seqs.at(-1) ?? 0;
      if (top > lastSeq) problems.push(`loop ${i} (${fsync}): the recording holds seq ${top}, the reopened journal only ${lastSeq}`);
      recorded.push(...seqs);
    }
    expect(problems).toEqual([]);
    const out = recorded.filter((seq, i) => i > 0 && seq <= (recorded[i - 1] as number));
    expect(out).toEqual([]);
    // The runs did dispatch: most events stored nothing (a kill before any is still a valid loop).
    expect(recorded.length).toBeGreaterThan(LOOPS);
  }, 120_000);
});
