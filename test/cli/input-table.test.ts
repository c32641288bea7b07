/**
 * Issue 37: every command of the command line against every kind of input a user could point it
 * at. A command that cannot read the input refuses with one line naming the path (as given) and
 * what it expected, exit code 1, no stack trace; a command that can read it gives the figures
 * the library gives for the same input (computed in this test with library calls).
 *
 * Runs `runCli` in-process (as the other CLI tests do): `inspect` on port 0, closed at once;
 * `watch` resolves once the files present are read, and is closed then.
 */
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { add, createCheckpointer, createSession, defineState, field } from '../../src/index';
import { runCli } from '../../src/cli/main';
import type { CliIO } from '../../src/cli/progress';
import type { WatchCommandHandle } from '../../src/cli/watch-command';
import type { Inspector } from '../../src/devtools/index';
import { checkpointFiles, jsonl, readRecording } from '../../src/jsonl/index';
import { RxSliceSaver, type LangGraphRecord } from '../../src/langgraph/index';
import { transcriptDefinitions } from '../../src/transcripts/durable';
import { splitLines } from '../../src/transcripts/parse';
import { formatReport } from '../../src/transcripts/report';
import { replayTranscript } from '../../src/transcripts/replay';
import { createWatchSession } from '../../src/watch/watch-session';
import { planGraph } from '../../examples/langgraph/graph';
import { NoteAdded, Notes } from '../fixtures';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const tmp = mkdtempSync(path.join(tmpdir(), 'rxslice-input-table-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
const at = (name: string): string => path.join(tmp, name);
const data = (name: string): string => path.join(ROOT, 'examples', 'data', name);

type Command = 'replay' | 'inspect' | 'stats' | 'history' | 'watch';
type Kind =
  | 'transcript'
  | 'transcripts directory'
  | 'JSONL store directory'
  | 'flight recording'
  | 'checkpointer directory'
  | 'LangGraph saver directory'
  | 'empty directory'
  | 'missing path'
  | 'PNG image'
  | 'package.json'
  | 'truncated transcript'
  | 'truncated recording';

/** Each kind's path, relative to the commands' cwd (tmp), as a user types it. */
const PATHS: Record<Kind, string> = {
  transcript: 'session.jsonl',
  'transcripts directory': 'transcripts',
  'JSONL store directory': 'store',
  'flight recording': 'run.jsonl',
  'checkpointer directory': 'checkpoints',
  'LangGraph saver directory': 'langgraph',
  'empty directory': 'empty',
  'missing path': 'missing.jsonl',
  'PNG image': 'image.png',
  'package.json': 'package.json',
  'truncated transcript': 'cut.jsonl',
  'truncated recording': 'cut-run.jsonl',
};

/** What each command reads; every other cell is a refusal. */
const READS: Record<Command, readonly Kind[]> = {
  replay: ['transcript', 'transcripts directory', 'truncated transcript'],
  inspect: ['flight recording', 'truncated recording'],
  stats: ['flight recording', 'truncated recording'],
  history: ['checkpointer directory', 'LangGraph saver directory'],
  watch: ['transcript', 'transcripts directory', 'truncated transcript', 'empty directory'],
};

const EXPECTED: Record<Command, string> = {
  replay: 'expected Claude Code transcripts (.jsonl files, or directories of them)',
  inspect: 'expected a flight recording (rxslice replay <transcript> --record <file>, or flightRecorder)',
  stats: 'expected a flight recording (rxslice replay <transcript> --record <file>, or flightRecorder)',
  history: 'expected a directory of checkpoint files (checkpointFiles(dir) of createCheckpointer or of the LangGraph RxSliceSaver)',
  watch: 'expected Claude Code transcripts (.jsonl files, or directories of them)',
};

const ARGS: Record<Command, (p: string) => string[]> = {
  replay: (p) => ['replay', p],
  inspect: (p) => ['inspect', p, '--port', '0'],
  stats: (p) => ['stats', p, '--json'],
  history: (p) => ['history', p, '--thread', 't1', '--json'],
  watch: (p) => ['watch', p, '--json'],
};

const Chat = defineState('chat', { messages: field(z.array(z.string()), { reducer: add, default: [] }), phase: field(z.string(), { default: 'start' }) });
let saver: RxSliceSaver;

beforeAll(async () => {
  copyFileSync(data('spotter-short.jsonl'), at('session.jsonl'));
  mkdirSync(at('transcripts'));
  copyFileSync(data('spotter-short.jsonl'), at('transcripts/a.jsonl'));
  copyFileSync(data('agentlogs-crud.jsonl'), at('transcripts/b.jsonl'));
  const session = createSession({ slices: [Notes], storage: jsonl({ dir: at('store') }) });
  session.dispatch(NoteAdded({ id: 1, text: 'a' }));
  session.dispose();
  const quiet: CliIO = { stdout: { write: () => true }, stderr: { write: () => true }, cwd: tmp };
  expect(await runCli(['replay', data('agentlogs-todos.jsonl'), data('spotter-short.jsonl'), '--record', at('run.jsonl')], quiet)).toBe(0);
  const cp = createCheckpointer({ state: Chat, storage: checkpointFiles(at('checkpoints'), { fsync: false }) });
  cp.put('t1', [{ messages: ['hi'] }]);
  cp.put('t1', [{ phase: 'talking' }]);
  cp.updateState('t1', { messages: ['edit'] }, { asNode: 'editor' });
  saver = new RxSliceSaver({ storage: checkpointFiles<LangGraphRecord>(at('langgraph'), { fsync: false }) });
  await planGraph(saver).invoke({ steps: ['go'] }, { configurable: { thread_id: 't1' } });
  mkdirSync(at('empty'));
  writeFileSync(at('image.png'), Buffer.from('89504e470d0a1a0a0000000d4948445200000001000000010806000000', 'hex'));
  copyFileSync(path.join(ROOT, 'package.json'), at('package.json'));
  const transcript = readFileSync(data('agentlogs-crud.jsonl'));
  writeFileSync(at('cut.jsonl'), transcript.subarray(0, transcript.length - 40)); // the last line cut off, no newline
  const recording = readFileSync(at('run.jsonl'));
  writeFileSync(at('cut-run.jsonl'), recording.subarray(0, recording.length - 30)); // a torn last line
});

interface Run {
  readonly code: number;
  readonly out: string;
  readonly err: string;
  readonly inspector: Inspector | undefined;
  readonly watch: WatchCommandHandle | undefined;
}

async function run(args: readonly string[]): Promise<Run> {
  const out: string[] = [];
  const err: string[] = [];
  const io: CliIO = { stdout: { write: (s: string) => out.push(s) }, stderr: { write: (s: string) => err.push(s) }, cwd: tmp };
  let inspector: Inspector | undefined;
  let watch: WatchCommandHandle | undefined;
  const code = await runCli(args, io, { onInspector: (i) => (inspector = i), onWatch: (w) => (watch = w) });
  return { code, out: out.join(''), err: err.join(''), inspector, watch };
}

/** The report text `replay` prints for a transcript, as the library makes it, up to its throughput (timing) rows. */
function libraryReport(file: string, source: string): string {
  const text = formatReport(replayTranscript(splitLines(readFileSync(file, 'utf8')), { source }));
  const end = text.search(/\n *throughput /);
  expect(end).toBeGreaterThan(0);
  return text.slice(0, end);
}

/** The events and lines a watch session commits for the complete lines of `file` (a partial last line waits), by the library. */
function libraryWatch(file: string): { lines: number; events: number } {
  const bytes = readFileSync(file);
  const complete = bytes.subarray(0, bytes.lastIndexOf(0x0a) + 1).toString('utf8');
  const session = createWatchSession();
  try {
    const report = replayTranscript(splitLines(complete), { source: file, session });
    return { lines: report.lines, events: report.events };
  } finally {
    session.dispose();
  }
}

/** Checks a command that read its input against the library. */
async function checkFigures(command: Command, kind: Kind, r: Run): Promise<void> {
  const given = PATHS[kind];
  const file = at(given);
  switch (command) {
    case 'replay': {
      if (kind === 'transcripts directory') {
        const a = libraryReport(at('transcripts/a.jsonl'), 'a.jsonl');
        const b = libraryReport(at('transcripts/b.jsonl'), 'b.jsonl');
        expect(r.out).toContain(a);
        expect(r.out).toContain(b);
        const sum = ['a.jsonl', 'b.jsonl'].map((f) => replayTranscript(splitLines(readFileSync(at(`transcripts/${f}`), 'utf8')), { source: f }));
        expect(r.out).toContain(`replayed 2 transcripts: ${sum[0]!.lines + sum[1]!.lines} lines, ${sum[0]!.events + sum[1]!.events} events`);
      } else {
        expect(r.out.startsWith(libraryReport(file, given))).toBe(true);
      }
      return;
    }
    case 'stats': {
      const stats = JSON.parse(r.out) as { file: string; events: number; firstSeq: number; lastSeq: number; eventsByType: { type: string; count: number }[] };
      const rec = readRecording(file, transcriptDefinitions());
      const byType = new Map<string, number>();
      for (const e of rec.envelopes()) byType.set(e.event.type, (byType.get(e.event.type) ?? 0) + 1);
      expect({ file: stats.file, events: stats.events, firstSeq: stats.firstSeq, lastSeq: stats.lastSeq }).toEqual({ file: given, events: rec.size, firstSeq: rec.firstSeq, lastSeq: rec.lastSeq });
      expect(Object.fromEntries(stats.eventsByType.map((t) => [t.type, t.count]))).toEqual(Object.fromEntries(byType));
      if (kind === 'truncated recording') expect(rec.tornTail).toBeDefined();
      rec.close();
      return;
    }
    case 'inspect': {
      const rec = readRecording(file, transcriptDefinitions());
      expect(r.out).toBe(`rxslice inspect: ${rec.size.toLocaleString('en-US')} events of ${given} at ${r.inspector!.url}  (Ctrl-C stops)\n`);
      const summary = (await (await fetch(new URL('/api/summary', r.inspector!.url))).json()) as { size: number; firstSeq: number; lastSeq: number; tornTail: boolean };
      expect(summary).toMatchObject({ size: rec.size, firstSeq: rec.firstSeq, lastSeq: rec.lastSeq, tornTail: kind === 'truncated recording' });
      rec.close();
      return;
    }
    case 'history': {
      const rows = (JSON.parse(r.out) as { checkpoints: { id: string; step: number; source: string }[] }).checkpoints.map((c) => [c.id, c.step, c.source]);
      if (kind === 'checkpointer directory') {
        const cp = createCheckpointer({ state: Chat, storage: checkpointFiles(file, { fsync: false }) });
        expect(rows).toEqual(cp.history('t1').reverse().map((c) => [c.id, c.metadata.step, c.metadata.source]));
      } else {
        const listed = [];
        for await (const t of saver.list({ configurable: { thread_id: 't1' } })) listed.unshift([t.checkpoint.id, t.metadata?.step, t.metadata?.source]);
        expect(rows).toEqual(listed);
      }
      return;
    }
    case 'watch': {
      const records = r.out.trimEnd().split('\n').filter(Boolean).map((l) => JSON.parse(l) as { type: string; label: string | null; file?: string; lines?: number; events?: number; message: string });
      if (kind === 'empty directory') {
        expect(records).toEqual([{ type: 'notice', at: expect.any(String), label: null, message: `waiting for transcripts: no *.jsonl file in ${file} yet (subdirectories included); each one that appears is watched` }]);
        return;
      }
      const files = kind === 'transcripts directory' ? [at('transcripts/a.jsonl'), at('transcripts/b.jsonl')] : [file];
      for (const f of files) {
        const updates = records.filter((u) => u.type === 'update' && u.file === f);
        expect(updates.length).toBeGreaterThan(0);
        const last = updates.at(-1)!;
        expect({ file: f, lines: last.lines, events: last.events }).toEqual({ file: f, ...libraryWatch(f) });
      }
      return;
    }
  }
}

const COMMANDS: readonly Command[] = ['replay', 'inspect', 'stats', 'history', 'watch'];
const KINDS = Object.keys(PATHS) as Kind[];

describe('every command × every input kind', () => {
  for (const command of COMMANDS) {
    for (const kind of KINDS) {
      const reads = READS[command].includes(kind);
      it(`${command} × ${kind}: ${reads ? 'the figures of the library' : 'one line naming the path and what was expected, exit 1'}`, async () => {
        const given = PATHS[kind];
        const r = await run(ARGS[command](given));
        try {
          expect(r.err).not.toMatch(/^\s+at /m); // never a stack trace
          if (reads) {
            expect({ code: r.code, err: r.err.split('\n').filter((l) => !l.startsWith('rxslice watch:')) }).toEqual({ code: 0, err: [''] });
            await checkFigures(command, kind, r);
          } else {
            expect(r.code).toBe(1);
            expect(r.out).toBe('');
            expect(r.err.endsWith('\n') && !r.err.slice(0, -1).includes('\n')).toBe(true); // one line
            expect(r.err).toContain(`rxslice ${command}: "${given}" `);
            expect(r.err).toContain(`; ${EXPECTED[command]}\n`);
            expect(r.inspector ?? r.watch).toBeUndefined();
          }
        } finally {
          await r.inspector?.close();
          await r.watch?.close();
        }
      });
    }
  }
});
