/** The demo's `--store <dir>` and `--record <file>` flags, run as a user would. */
import { spawnSync } from 'node:child_process';
import { appendFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { createTranscriptSession } from '../../src/transcripts/replay';
import { AgentPhases } from '../../src/transcripts/phases';
import { Messages, transcriptSlices } from '../../src/transcripts/slices';
import { storeFileOf } from '../../src/transcripts/durable';
import { loadSnapshot, readRecording } from '../../src/jsonl/index';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const DATA = path.join(ROOT, 'examples/data');
const tmp = mkdtempSync(path.join(tmpdir(), 'rxslice-durable-demo-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const run = (args: string[]) =>
  spawnSync('npx', ['tsx', 'examples/agent-transcript/main.ts', ...args], { cwd: ROOT, encoding: 'utf8', env: { ...process.env, INIT_CWD: ROOT }, timeout: 60_000 });
const userLine = (i: number): string =>
  JSON.stringify({ type: 'user', uuid: `u${i}`, timestamp: `2025-01-01T00:00:${String(i).padStart(2, '0')}Z`, message: { role: 'user', content: `message ${i}` } });
const storedMessages = (dir: string, label: string): unknown[] => {
  const machine = createTranscriptSession().machine(AgentPhases).slice;
  return [...(loadSnapshot(storeFileOf(dir, label), [...transcriptSlices, machine]).slices[Messages.name]?.items ?? [])];
};

describe('demo --store <dir>', () => {
  it('saves the session; a second run opens it and replays only new lines (no duplicated events)', () => {
    const store = path.join(tmp, 'store');
    const file = path.join(tmp, 'grows.jsonl');
    writeFileSync(file, `${[1, 2, 3].map(userLine).join('\n')}\n`);

    const first = run(['--store', store, file]);
    expect(first.stderr).not.toMatch(/rxslice|Error/);
    expect(first.status).toBe(0);
    expect(first.stdout).toContain('store: new session');
    expect(first.stdout).toMatch(/events {7}3 dispatched/);
    expect(storedMessages(store, file)).toHaveLength(3);

    const again = run([`--store=${store}`, file]);
    expect(again.status).toBe(0);
    expect(again.stdout).toMatch(/store: opened .*: 3 events of this transcript already stored \(3 messages kept\)/);
    expect(again.stdout).toContain('none, all were already in the store');
    expect(storedMessages(store, file)).toHaveLength(3);

    appendFileSync(file, `${[4, 5].map(userLine).join('\n')}\n`);
    const grown = run(['--store', store, file]);
    expect(grown.stdout).toMatch(/events {7}2 dispatched/);
    expect(storedMessages(store, file).map((m) => (m as { text: string }).text)).toEqual(['message 1', 'message 2', 'message 3', 'message 4', 'message 5']);
  });

  it('reports a damaged store clearly and exits non-zero', () => {
    const store = path.join(tmp, 'damaged');
    const file = path.join(tmp, 'one.jsonl');
    writeFileSync(file, `${userLine(1)}\n`);
    expect(run(['--store', store, file]).status).toBe(0);
    writeFileSync(storeFileOf(store, file), '{"format":"rxslice.snapshot"');
    const r = run(['--store', store, file]);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/rxslice replay: .*one\.jsonl: InvalidSnapshotError \(INVALID_SNAPSHOT\): The snapshot cannot be read: it is not valid JSON/);
  });

  it('needs a path', () => {
    const r = run(['--store']);
    // A usage error (commander): exit 2, and the usage follows.
    expect(r.status).toBe(2);
    expect(r.stderr).toContain("error: option '--store <dir>' argument missing");
    expect(r.stderr).toContain('Usage: rxslice replay [options] [transcripts...]');
  });
});

describe('demo --record <file>', () => {
  it('writes a flight recording of the replay whose last state equals the live session', () => {
    const rec = path.join(tmp, 'rec', 'short.jsonl');
    const r = run(['--record', rec, path.join(DATA, 'spotter-short.jsonl')]);
    expect(r.stderr).not.toMatch(/rxslice|Error/);
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/record: 27 envelopes \(seq 0–27\), 1 snapshots in /);
    expect(r.stdout).toMatch(/state at seq 27 equals the live session/);
    expect(existsSync(rec)).toBe(true);
    const machine = createTranscriptSession().machine(AgentPhases).slice;
    const recording = readRecording(rec, { slices: [...transcriptSlices, machine] });
    expect(recording.size).toBe(27);
    expect(readFileSync(rec, 'utf8').endsWith('\n')).toBe(true);
  });
});
