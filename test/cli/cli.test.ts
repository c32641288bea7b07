/**
 * The `rxslice` command line in-process (runCli with captured output), and the inspector's JSON
 * API over HTTP. The browser side of the inspector is in test/e2e (npm run test:e2e).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createSession, Snapshot } from '../../src/index';
import { runCli } from '../../src/cli/main';
import { progress, type CliIO } from '../../src/cli/progress';
import type { Inspector } from '../../src/devtools/index';
import { flightRecorder, readRecording, readRecordingHeader, type Recording } from '../../src/jsonl/index';
import { transcriptDefinitions } from '../../src/transcripts/durable';
import { Counter, CounterBumped, NoteAdded, Notes } from '../fixtures';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const tmp = mkdtempSync(path.join(tmpdir(), 'rxslice-cli-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

function io(isTTY = false) {
  const out: string[] = [];
  const err: string[] = [];
  const value: CliIO = { stdout: { write: (s: string) => out.push(s) }, stderr: { write: (s: string) => err.push(s), isTTY }, cwd: ROOT };
  return { io: value, out: () => out.join(''), err: () => err.join('') };
}

const recordingFile = path.join(tmp, 'r.jsonl');
let recording: Recording;

beforeAll(async () => {
  const c = io();
  const code = await runCli(['replay', 'examples/data/spotter-short.jsonl', 'examples/data/agentlogs-crud.jsonl', '--record', recordingFile], c.io);
  expect(c.err()).toBe('');
  expect(code).toBe(0);
  expect(c.out()).toContain('2 transcripts replayed one after the other into one session');
  expect(c.out()).toMatch(/state at seq \d+ equals the live session/);
  recording = readRecording(recordingFile, transcriptDefinitions());
});

describe('rxslice replay --record with several transcripts', () => {
  it('writes one labelled recording of one session', () => {
    expect(readRecordingHeader(recordingFile)).toEqual({ formatVersion: 2, snapshotEvery: 1000, label: 'rxslice.transcript' });
    const types = new Set([...recording.envelopes()].map((e) => e.event.type));
    // Events of both transcripts are in it: the spotter one has tool calls, both have messages.
    expect(types.has('transcript/toolCalled')).toBe(true);
    expect(recording.size).toBeGreaterThan(27);
  });

  it('a missing transcript fails before anything is replayed', async () => {
    const c = io();
    expect(await runCli(['replay', 'nope.jsonl', '--record', path.join(tmp, 'x.jsonl')], c.io)).toBe(1);
    expect(c.err()).toBe('rxslice replay: "nope.jsonl" does not exist; expected Claude Code transcripts (.jsonl files, or directories of them)\n');
  });

  it('needs a transcript unless the caller gives defaults', async () => {
    const c = io();
    expect(await runCli(['replay'], c.io)).toBe(2);
    expect(c.err()).toContain('give at least one transcript');
  });
});

describe('rxslice stats', () => {
  it('counts events by type, samples slice sizes, and sums effect outcomes, as the recording holds them', async () => {
    const c = io();
    expect(await runCli(['stats', recordingFile, '--json'], c.io)).toBe(0);
    const stats = JSON.parse(c.out());
    const byType = new Map<string, number>();
    for (const e of recording.envelopes()) byType.set(e.event.type, (byType.get(e.event.type) ?? 0) + 1);
    expect(Object.fromEntries(stats.eventsByType.map((t: { type: string; count: number }) => [t.type, t.count]))).toEqual(Object.fromEntries(byType));
    expect(stats.events).toBe(recording.size);
    const last = recording.stateAt(recording.lastSeq).slices;
    for (const [name, sizes] of Object.entries(stats.sizes.slices as Record<string, number[]>)) expect(sizes[sizes.length - 1]).toBe(last[name]?.items.length);
    const started = byType.get('rxslice.effect.started') ?? 0;
    const retries = byType.get('rxslice.effect.retrying') ?? 0;
    const runs = stats.outcomes.reduce((n: number, o: { count: number }) => n + o.count, 0);
    expect(runs + retries).toBe(started);
    expect(stats.outcomes.reduce((n: number, o: { retries: number }) => n + o.retries, 0)).toBe(retries);
    const text = io();
    expect(await runCli(['stats', recordingFile], text.io)).toBe(0);
    expect(text.out()).toContain('events by type');
    expect(text.out()).toMatch(/ effect transcript\/notify: \d+ succeeded/);
  });

  it('a recording without a label needs --session; with it, stats reads it', async () => {
    const file = path.join(tmp, 'plain.jsonl');
    const session = createSession({ slices: [Notes, Counter] });
    const recorder = flightRecorder(session, { file });
    session.dispatch(NoteAdded({ id: 1, text: 'a' }));
    session.dispatch(CounterBumped({ by: 2 }));
    recorder.close();
    session.dispose();
    const refused = io();
    expect(await runCli(['stats', file], refused.io)).toBe(1);
    expect(refused.err()).toContain('recorded without a label, so its slice definitions are unknown: pass --session <module>');
    const c = io();
    expect(await runCli(['stats', file, '--session', 'test/cli/session-module.ts'], c.io)).toBe(0);
    expect(c.out()).toContain('events      2 (seq 0–2)');
    expect(c.out()).toMatch(/notes +0 → .*1/);
    const bad = io();
    expect(await runCli(['stats', file, '--session', 'test/fixtures.ts'], bad.io)).toBe(1);
    expect(bad.err()).toContain('must export `slices`');
  });

  it('a file that is not a recording is a clear error', async () => {
    const c = io();
    expect(await runCli(['stats', path.join(ROOT, 'package.json')], c.io)).toBe(1);
    expect(c.err()).toBe(`rxslice stats: "${path.join(ROOT, 'package.json')}" is a file of another kind (no line of it is a JSON object); expected a flight recording (rxslice replay <transcript> --record <file>, or flightRecorder)\n`);
  });
});

describe('rxslice inspect: the JSON API', () => {
  let inspector: Inspector;
  beforeAll(async () => {
    const c = io();
    expect(await runCli(['inspect', recordingFile, '--port', '0'], c.io, { onInspector: (i) => (inspector = i) })).toBe(0);
    expect(c.out()).toContain(`at ${inspector.url}`);
  });
  afterAll(() => inspector?.close());
  const get = async (p: string) => {
    const res = await fetch(new URL(p, inspector.url));
    return { status: res.status, body: (await res.json()) as any };
  };

  it('pages and filters the event list', async () => {
    const page = await get('/api/events?offset=10&limit=5');
    expect(page.body.total).toBe(recording.size);
    const expected = [...recording.envelopes({ fromSeq: recording.firstSeq + 11, toSeq: recording.firstSeq + 15 })];
    expect(page.body.rows.map((r: { seq: number; type: string }) => [r.seq, r.type])).toEqual(expected.map((e) => [e.seq, e.event.type]));
    const called = [...recording.envelopes()].filter((e) => e.event.type === 'transcript/toolCalled');
    const filtered = await get('/api/events?offset=0&limit=1000&type=transcript/toolCalled');
    expect(filtered.body.total).toBe(called.length);
    expect(filtered.body.rows.map((r: { seq: number }) => r.seq)).toEqual(called.map((e) => e.seq));
    const text = await get('/api/events?offset=0&limit=1000&text=BASH');
    const withBash = [...recording.envelopes()].filter((e) => JSON.stringify([e.event, e.meta]).toLowerCase().includes('bash'));
    expect(text.body.total).toBe(withBash.length);
  });

  it('answers state, diff, statecharts, timeline and series from the recording', async () => {
    const seq = recording.firstSeq + 20;
    expect((await get(`/api/state?seq=${seq}`)).body.slices.messages.items).toEqual(recording.stateAt(seq).slices['messages']?.items);
    expect((await get(`/api/diff?from=${seq - 1}&to=${seq}`)).body).toEqual(JSON.parse(JSON.stringify(Snapshot.diff(recording.stateAt(seq - 1), recording.stateAt(seq)))));
    const machines = (await get(`/api/machines?seq=${seq}`)).body;
    const snap = recording.stateAt(seq).slices['machine/agentPhase']?.items[0] as { configuration: string[] };
    expect(machines).toHaveLength(1);
    expect(machines[0].configuration).toEqual(snap.configuration);
    expect(machines[0].mermaid).toMatch(/^stateDiagram-v2\n/);
    const timeline = (await get('/api/timeline')).body as { kind: string; retries: number; outcome: string }[];
    const retrying = [...recording.envelopes()].filter((e) => e.event.type === 'rxslice.effect.retrying').length;
    expect(timeline.reduce((n, e) => n + e.retries, 0)).toBe(retrying);
    expect(timeline.every((e) => e.kind === 'effect' && e.outcome !== 'running')).toBe(true);
    const series = (await get('/api/series?points=5')).body;
    expect(series.seqs).toEqual([0, 1, 2, 3, 4].map((i) => recording.firstSeq + Math.round(((recording.lastSeq - recording.firstSeq) * i) / 4)));
    expect(series.sizes.messages[4]).toBe(recording.stateAt(recording.lastSeq).slices['messages']?.items.length);
    expect(Object.keys(series.numbers)).toContain('tokenUsage.output');
  });

  it('a bad port is a usage error, and nothing listens', async () => {
    const c = io();
    expect(await runCli(['inspect', recordingFile, '--port', 'abc'], c.io, { onInspector: () => expect.unreachable() })).toBe(2);
    expect(c.err()).toContain("option '--port <n>' argument 'abc' is invalid. a port is an integer from 0 to 65535");
  });

  it('a port in use is a clear error (exit 1), and the inspector already listening goes on', async () => {
    const c = io();
    expect(await runCli(['inspect', recordingFile, '--port', String(inspector.port)], c.io, { onInspector: () => expect.unreachable() })).toBe(1);
    expect(c.err()).toBe(`rxslice inspect: The inspector cannot start: port ${inspector.port} on 127.0.0.1 is in use (another inspector or server listens there): choose another with --port <n>, or --port 0 for any free port.\n`);
    expect((await get('/api/summary')).status).toBe(200);
  });

  it('answers bad requests with 400 and the error; serves the page and its libraries', async () => {
    expect(await get('/api/state?seq=abc')).toEqual({ status: 400, body: { error: { name: 'BadRequest', code: 'BAD_REQUEST', message: 'query parameter "seq" must be an integer, got "abc"' } } });
    const out = await get(`/api/state?seq=${recording.lastSeq + 1}`);
    expect(out.status).toBe(400);
    expect(out.body.error.name).toBe('RecordingError');
    const page = await fetch(inspector.url);
    expect(page.headers.get('content-type')).toContain('text/html');
    expect(await page.text()).toContain('<title>rxslice inspector</title>');
    for (const lib of ['/vendor/mermaid.min.js', '/vendor/uPlot.iife.min.js']) expect((await fetch(new URL(lib, inspector.url))).status).toBe(200);
  });
});

describe('rxslice --version', () => {
  it('-V, --version and -v print the version of the package', async () => {
    const { version } = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string };
    for (const flag of ['-V', '--version', '-v']) {
      const c = io();
      expect(await runCli([flag], c.io)).toBe(0);
      expect([flag, c.out(), c.err()]).toEqual([flag, `${version}\n`, '']);
    }
  });
});

describe('progress', () => {
  it('draws a cli-progress bar (count, rate, ETA) when stderr is a terminal, once the work lasts over a second', () => {
    vi.useFakeTimers({ now: 0 });
    try {
      const tty = io(true);
      const p = progress(tty.io, 'replay', 200, 'events');
      p.update(10);
      expect(tty.err()).toBe('');
      vi.setSystemTime(2000);
      p.update(100);
      vi.setSystemTime(4000);
      p.update(200);
      p.stop();
      // The bar's last frame, without the terminal's control sequences.
      const text = tty.err().replace(/\x1b\[[0-9;?]*[A-Za-z]/g, '');
      expect(text).toContain('replay [');
      expect(text).toContain('] 200/200 events | 50/s | ETA 0s');
    } finally {
      vi.useRealTimers();
    }
  });

  it('is silent for work under a second, then prints plain lines off a terminal', () => {
    vi.useFakeTimers({ now: 0 });
    try {
      const quick = io();
      const p = progress(quick.io, 'quick', 100, 'events');
      p.update(100);
      p.stop();
      expect(quick.err()).toBe('');
      const slow = io();
      const q = progress(slow.io, 'slow', 100, 'events');
      vi.setSystemTime(6000);
      q.update(50);
      vi.setSystemTime(12_000);
      q.update(100);
      q.stop();
      expect(slow.err()).toBe('slow: 50/100 events (8/s, ETA 6s)\nslow: 100/100 events (8/s, ETA 0s)\nslow: 100 events in 12.0s (8/s)\n');
    } finally {
      vi.useRealTimers();
    }
  });
});
