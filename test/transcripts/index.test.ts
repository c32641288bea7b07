/** The `rxslice/transcripts` entry (src/transcripts/index.ts), used as a user would. */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { readRecording, readRecordingHeader } from '../../src/jsonl/index';
import {
  AgentPhases,
  createTranscriptSession,
  Messages,
  parseTranscript,
  replayTranscript,
  splitLines,
  TRANSCRIPT_LABEL,
  TranscriptClock,
  transcriptDefinitions,
  transcriptSlices,
} from '../../src/transcripts/index';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const DATA = path.join(ROOT, 'examples/data');
const tmp = mkdtempSync(path.join(tmpdir(), 'rxslice-transcripts-entry-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
const FILES = ['agentlogs-subagent.jsonl', 'spotter-short.jsonl'].map((f) => path.join(DATA, f));

describe('rxslice/transcripts', () => {
  it('reads a recording of the demo with readRecording(file, transcriptDefinitions())', () => {
    const file = path.join(tmp, 'demo.jsonl');
    const demo = spawnSync('npx', ['tsx', 'examples/agent-transcript/main.ts', '--record', file, ...FILES], {
      cwd: ROOT,
      encoding: 'utf8',
      env: { ...process.env, INIT_CWD: ROOT },
      timeout: 60_000,
    });
    expect(demo.stderr).not.toMatch(/Error/);
    expect(demo.status).toBe(0);
    expect(readRecordingHeader(file).label).toBe(TRANSCRIPT_LABEL);

    const recording = readRecording(file, transcriptDefinitions());

    // The same transcripts replayed here, one after the other into one session, as the demo did.
    const session = createTranscriptSession();
    FILES.forEach((f, i) => replayTranscript(splitLines(readFileSync(f, 'utf8')), { source: f, session, earlierTranscripts: i }));
    const events = FILES.reduce((n, f) => n + parseTranscript(splitLines(readFileSync(f, 'utf8'))).events.length, 0);
    const end = recording.stateAt(recording.lastSeq);
    expect(recording.size).toBeGreaterThanOrEqual(events);
    expect(JSON.stringify(end.toJSON().slices)).toBe(JSON.stringify(session.snapshot({ includeLogs: true }).toJSON().slices));
    expect(end.slices[Messages.name]?.items.length).toBe(session.slice(Messages).size);
    expect(Object.keys(end.slices)).toEqual(expect.arrayContaining([...transcriptSlices.map((s) => s.name), `machine/${AgentPhases.name}`]));
    session.dispose();
  });

  it('transcriptDefinitions() holds every transcript slice, the statechart, and a session factory with the statechart installed', () => {
    const defs = transcriptDefinitions();
    expect(defs.slices.map((s) => s.name)).toEqual([...transcriptSlices.map((s) => s.name), `machine/${AgentPhases.name}`]);
    expect(defs.machines).toEqual([AgentPhases]);
    const replay = defs.session(new TranscriptClock());
    expect(replay.machine(AgentPhases).current.basicConfiguration).toEqual(['idle']);
    replay.dispose();
  });
});
