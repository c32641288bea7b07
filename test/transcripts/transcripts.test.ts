import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { defineSlice, type Event } from '../../src/index';
import {
  AssistantMessageAdded,
  FileHistorySnapshotted,
  ProgressReported,
  PromptQueueChanged,
  SubagentStarted,
  SummaryAdded,
  SystemMessageAdded,
  TodosUpdated,
  ToolCalled,
  ToolFailed,
  ToolSucceeded,
  UserMessageAdded,
} from '../../src/transcripts/events';
import { parseLine, parseTranscript, splitLines } from '../../src/transcripts/parse';
import { createTranscriptSession, replayTranscript } from '../../src/transcripts/replay';
import { Messages, Plan, TokenUsage, ToolCalls, UNMATCHED_TOOL } from '../../src/transcripts/slices';
import { scanTranscript } from './transcript-scan';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const DATA = path.join(ROOT, 'examples/data');
const BIG_A = 'spotter-4d5611e5-241a-462a-8d15-5122611a9569.jsonl';
const BIG_B = 'spotter-ae4a77f8-aedd-4bc1-888f-c94edc91af04.jsonl';

const line = (o: unknown): string => JSON.stringify(o);
const usage = { input_tokens: 3, output_tokens: 10, cache_creation_input_tokens: 100, cache_read_input_tokens: 1000 };
/** An assistant line; `u === null` leaves `message.usage` out. */
const assistant = (id: string, content: unknown[], u: unknown = usage, uuid = `a-${id}`): string =>
  line({
    type: 'assistant',
    uuid,
    timestamp: 't',
    message: { id, model: 'claude-x', role: 'assistant', content, ...(u === null ? {} : { usage: u }) },
  });
const user = (content: unknown, extra: object = {}): string =>
  line({ type: 'user', uuid: 'u1', timestamp: 't', message: { role: 'user', content }, ...extra });
const types = (events: readonly Event[]): string[] => events.map((e) => e.type);

describe('parseLine: each event kind', () => {
  it('user text (string content, meta flags) → userMessageAdded', () => {
    const r = parseLine(user('fix the build', { isMeta: true }));
    expect(r).toEqual({
      events: [
        UserMessageAdded({ uuid: 'u1', timestamp: 't', text: 'fix the build', isMeta: true, isSidechain: false, isCompactSummary: false }),
      ],
      skipped: [],
    });
  });

  it('user text blocks are joined into one message, after the line\'s tool results', () => {
    const r = parseLine(
      user([
        { type: 'text', text: 'a' },
        { type: 'tool_result', tool_use_id: 't1', content: 'done' },
        { type: 'text', text: 'b' },
      ]),
    );
    expect(types(r.events)).toEqual(['transcript/toolSucceeded', 'transcript/userMessageAdded']);
    expect(r.events[1]?.payload).toMatchObject({ text: 'a\nb' });
  });

  it('tool_result ok (is_error absent or false) and error (is_error true), list content joined', () => {
    const r = parseLine(
      user([
        { type: 'tool_result', tool_use_id: 't1', content: 'ok output' },
        { type: 'tool_result', tool_use_id: 't2', content: [{ type: 'text', text: 'x' }, { type: 'text', text: 'y' }], is_error: false },
        { type: 'tool_result', tool_use_id: 't3', content: 'Exit code 1\nboom', is_error: true },
      ]),
    );
    expect(r.events).toEqual([
      ToolSucceeded({ toolUseId: 't1', content: 'ok output', timestamp: 't' }),
      ToolSucceeded({ toolUseId: 't2', content: 'x\ny', timestamp: 't' }),
      ToolFailed({ toolUseId: 't3', error: 'Exit code 1\nboom', timestamp: 't' }),
    ]);
  });

  it('assistant text with usage → assistantMessageAdded with the four token fields', () => {
    const r = parseLine(assistant('m1', [{ type: 'text', text: 'hello' }]));
    expect(r.events).toEqual([
      AssistantMessageAdded({
        uuid: 'a-m1',
        timestamp: 't',
        messageId: 'm1',
        model: 'claude-x',
        blockTypes: ['text'],
        text: 'hello',
        usage: { input: 3, output: 10, cacheCreation: 100, cacheRead: 1000 },
        isSidechain: false,
      }),
    ]);
  });

  it('assistant without usage or cache fields: usage null, missing cache fields count 0', () => {
    expect(parseLine(assistant('m1', [{ type: 'thinking', thinking: 'hmm', signature: 's' }], null)).events[0]?.payload).toMatchObject({
      usage: null,
      blockTypes: ['thinking'],
      text: '',
    });
    const r = parseLine(assistant('m2', [{ type: 'text', text: 'x' }], { input_tokens: 1, output_tokens: 2 }));
    expect(r.events[0]?.payload).toMatchObject({ usage: { input: 1, output: 2, cacheCreation: 0, cacheRead: 0 } });
  });

  it('tool_use → toolCalled; TodoWrite adds todosUpdated; Task adds subagentStarted', () => {
    const todos = [
      { content: 'write parser', status: 'completed', activeForm: 'Writing parser' },
      { content: 'write tests', status: 'in_progress' },
    ];
    const r = parseLine(
      assistant('m1', [
        { type: 'tool_use', id: 't1', name: 'Bash', input: { command: 'ls' } },
        { type: 'tool_use', id: 't2', name: 'TodoWrite', input: { todos } },
        { type: 'tool_use', id: 't3', name: 'Task', input: { subagent_type: 'Explore', description: 'look around', prompt: 'p' } },
      ]),
    );
    expect(types(r.events)).toEqual([
      'transcript/assistantMessageAdded',
      'transcript/toolCalled',
      'transcript/toolCalled',
      'transcript/todosUpdated',
      'transcript/toolCalled',
      'transcript/subagentStarted',
    ]);
    expect(r.events[1]).toEqual(ToolCalled({ toolUseId: 't1', name: 'Bash', input: { command: 'ls' }, messageId: 'm1', timestamp: 't' }));
    expect(r.events[3]).toEqual(
      TodosUpdated({
        toolUseId: 't2',
        timestamp: 't',
        todos: [
          { content: 'write parser', status: 'completed', activeForm: 'Writing parser' },
          { content: 'write tests', status: 'in_progress', activeForm: null },
        ],
      }),
    );
    expect(r.events[5]).toEqual(SubagentStarted({ toolUseId: 't3', subagentType: 'Explore', description: 'look around', timestamp: 't' }));
  });

  it('progress, system, summary, file-history-snapshot and queue-operation lines', () => {
    const one = (o: unknown): Event | undefined => parseLine(line(o)).events[0];
    expect(one({ type: 'progress', data: { type: 'hook_progress' }, toolUseID: 'x', parentToolUseID: 'y', timestamp: 't' })).toEqual(
      ProgressReported({ kind: 'hook_progress', toolUseId: 'x', parentToolUseId: 'y', timestamp: 't', subagentCalls: [], subagentErrors: 0 }),
    );
    expect(one({ type: 'system', subtype: 'compact_boundary', content: 'Conversation compacted', level: 'info', timestamp: 't' })).toEqual(
      SystemMessageAdded({ subtype: 'compact_boundary', content: 'Conversation compacted', level: 'info', timestamp: 't' }),
    );
    expect(one({ type: 'summary', summary: 'Fix the build', leafUuid: 'l1' })).toEqual(SummaryAdded({ summary: 'Fix the build', leafUuid: 'l1' }));
    expect(
      one({ type: 'file-history-snapshot', messageId: 'm', snapshot: { trackedFileBackups: { a: {}, b: {} }, timestamp: 't' }, isSnapshotUpdate: false }),
    ).toEqual(FileHistorySnapshotted({ messageId: 'm', trackedFiles: 2, isSnapshotUpdate: false, timestamp: 't' }));
    expect(one({ type: 'queue-operation', operation: 'remove', timestamp: 't', sessionId: 's' })).toEqual(
      PromptQueueChanged({ operation: 'remove', content: null, timestamp: 't' }),
    );
  });

  it('every event the parser makes is accepted by a session validating always', () => {
    const session = createTranscriptSession();
    const lines = [
      user('hi'),
      assistant('m1', [{ type: 'tool_use', id: 't1', name: 'TodoWrite', input: { todos: [{ content: 'a', status: 'pending' }] } }]),
      assistant('m1', [{ type: 'tool_use', id: 't2', name: 'Task', input: { description: 'd' } }]),
      user([{ type: 'tool_result', tool_use_id: 't1', content: 'ok' }, { type: 'tool_result', tool_use_id: 't2', content: 'no', is_error: true }]),
      line({ type: 'summary', summary: 's' }),
      line({ type: 'system', subtype: 'turn_duration', durationMs: 5 }),
    ];
    for (const e of parseTranscript(lines).events) expect(() => session.dispatch(e)).not.toThrow();
    expect(session.slice(ToolCalls).all().map((c) => c.status)).toEqual(['ok', 'error']);
    session.dispose();
  });
});

describe('parseLine: what it skips, and why', () => {
  it.each([
    ['', 'blank line'],
    ['{"type": "user", ', 'invalid JSON'],
    ['[1, 2]', 'not a JSON object'],
    ['"user"', 'not a JSON object'],
    ['{"uuid": "x"}', 'no "type" field'],
    ['{"type": "custom-title", "title": "x"}', 'unknown line type "custom-title"'],
    ['{"type": "toString"}', 'unknown line type "toString"'],
    [line({ type: 'summary' }), 'malformed summary line (summary: invalid_type)'],
    [assistant('m1', [], { input_tokens: 'many', output_tokens: 1 }), 'malformed assistant line (message.usage.input_tokens: invalid_type)'],
    [user([]), 'empty user line'],
  ])('%j → %s', (text, reason) => {
    expect(parseLine(text)).toEqual({ events: [], skipped: [reason] });
  });

  it('an unknown block or a bad TodoWrite input is counted while the rest of the line is kept', () => {
    const r = parseLine(user([{ type: 'image', source: {} }, { type: 'tool_result', tool_use_id: 't1', content: 'ok' }]));
    expect(types(r.events)).toEqual(['transcript/toolSucceeded']);
    expect(r.skipped).toEqual(['unknown user content block "image"']);
    const t = parseLine(assistant('m1', [{ type: 'tool_use', id: 't1', name: 'TodoWrite', input: { todos: 'none' } }]));
    expect(types(t.events)).toEqual(['transcript/assistantMessageAdded', 'transcript/toolCalled']);
    expect(t.skipped).toEqual(['malformed TodoWrite input (todos: invalid_type)']);
  });

  it('parseTranscript counts reasons and lines that gave no event', () => {
    const parsed = parseTranscript(splitLines(`not json\n${user('hi')}\nstill not json\n{"type":"x"}\n`));
    expect(parsed.lines).toBe(4);
    expect(parsed.skippedLines).toBe(3);
    expect(parsed.events).toHaveLength(1);
    expect([...parsed.skipped]).toEqual([
      ['invalid JSON', 2],
      ['unknown line type "x"', 1],
    ]);
  });

  it('splitLines handles \\r\\n and a missing final line break', () => {
    expect(splitLines('a\r\nb')).toEqual(['a', 'b']);
    expect(splitLines('a\n\nb\n')).toEqual(['a', '', 'b']);
    expect(splitLines('')).toEqual([]);
  });
});

describe('slices', () => {
  const replay = (lines: string[]) => {
    const session = createTranscriptSession();
    replayTranscript(lines, { source: 'test', session });
    return session;
  };

  it('a tool call gets its status and first error line when its result arrives, matched by tool_use_id', () => {
    const session = replay([
      assistant('m1', [{ type: 'tool_use', id: 't1', name: 'Bash', input: { command: 'npm   test' } }]),
      assistant('m2', [{ type: 'tool_use', id: 't2', name: 'Read', input: { file_path: '/a.ts' } }]),
      user([{ type: 'tool_result', tool_use_id: 't1', content: '\nExit code 1\nstack', is_error: true }]),
      user([{ type: 'tool_result', tool_use_id: 'tX', content: 'orphan' }]),
    ]);
    expect(session.slice(ToolCalls).all()).toEqual([
      { toolUseId: 't1', name: 'Bash', summary: 'npm test', status: 'error', error: 'Exit code 1', calledAt: 't', settledAt: 't' },
      { toolUseId: 't2', name: 'Read', summary: '/a.ts', status: 'pending', error: null, calledAt: 't', settledAt: null },
      { toolUseId: 'tX', name: UNMATCHED_TOOL, summary: '', status: 'ok', error: null, calledAt: null, settledAt: 't' },
    ]);
    session.dispose();
  });

  it('tokens: consecutive lines of one message.id count once with the last usage; a new id adds', () => {
    const u = (output: number) => ({ ...usage, output_tokens: output });
    const session = replay([
      assistant('m1', [{ type: 'thinking', thinking: '.' }], u(5), 'a1'),
      assistant('m1', [{ type: 'text', text: 'x' }], u(40), 'a2'),
      user([{ type: 'tool_result', tool_use_id: 't', content: '' }]),
      assistant('m2', [{ type: 'text', text: 'y' }], u(7), 'a3'),
    ]);
    expect(session.slice(TokenUsage).latest()).toMatchObject({ input: 6, output: 47, cacheCreation: 200, cacheRead: 2000, responses: 2 });
    expect(session.slice(Messages).size).toBe(3);
    session.dispose();
  });

  it('an event the session rejects is counted by reason and the replay goes on (extended session)', () => {
    const Fragile = defineSlice('fragile', {
      policy: 'log',
      reducers: ({ on }) => [
        on(SummaryAdded, () => {
          throw new Error('boom');
        }),
      ],
    });
    const session = createTranscriptSession({ slices: [Fragile] });
    const report = replayTranscript([line({ type: 'summary', summary: 's' }), user('after')], { source: 'x', session });
    expect([...report.skipped]).toEqual([['rejected by the session (REDUCER_FAILED): transcript/summaryAdded', 1]]);
    expect(report.events).toBe(1);
    expect(session.slice(Messages).latest()?.text).toBe('after');
    session.dispose();
  });

  it('the plan is the latest TodoWrite list', () => {
    const todo = (status: string) => ({ todos: [{ content: 'a', status }, { content: 'b', status: 'pending' }] });
    const session = replay([
      assistant('m1', [{ type: 'tool_use', id: 't1', name: 'TodoWrite', input: todo('in_progress') }]),
      assistant('m2', [{ type: 'tool_use', id: 't2', name: 'TodoWrite', input: todo('completed') }]),
    ]);
    expect(session.slice(Plan).all()).toHaveLength(1);
    expect(session.slice(Plan).latest()?.todos.map((t) => t.status)).toEqual(['completed', 'pending']);
    session.dispose();
  });
});

describe.each([
  [BIG_A, 1512, 150, 5],
  [BIG_B, 2385, 242, 12],
])('replay of %s against a plain JSON scan', (file, lines, knownToolUse, knownErrors) => {
  const text = readFileSync(path.join(DATA, file), 'utf8');
  const report = replayTranscript(splitLines(text), { source: file });
  const expected = scanTranscript(text); // independent plain JSON scan: see transcript-scan.ts

  it('matches the numbers stated in the transcripts README', () => {
    expect(report.lines).toBe(lines);
    expect(expected.toolUse).toBe(knownToolUse);
    expect(expected.errors).toBe(knownErrors);
    expect(report.toolCalls.total).toBe(knownToolUse);
    expect(report.toolCalls.errors).toBe(knownErrors);
  });

  it('tool calls, error results and token sums equal the scan exactly', () => {
    expect(report.toolCalls.total).toBe(expected.toolUse);
    expect(report.eventsByType.get('transcript/toolCalled')).toBe(expected.toolUse);
    expect(report.toolCalls.errors).toBe(expected.errors);
    expect(report.eventsByType.get('transcript/toolFailed')).toBe(expected.errors);
    expect(report.toolCalls.pending).toBe(0);
    const total = expected.tokens.input + expected.tokens.output + expected.tokens.cacheCreation + expected.tokens.cacheRead;
    expect(report.tokens).toEqual({ ...expected.tokens, total, responses: expected.responses });
  });

  it('nothing is skipped, and the lines of each message.id are consecutive (so both token rules agree)', () => {
    expect([...report.skipped]).toEqual([]);
    expect(report.skippedLines).toBe(0);
    expect(expected.runs).toBe(expected.responses);
  });
});

describe('demo CLI', () => {
  const tmp = mkdtempSync(path.join(tmpdir(), 'rxslice-transcript-'));
  afterAll(() => rmSync(tmp, { recursive: true, force: true }));
  const run = (args: string[]) =>
    spawnSync('npx', ['tsx', 'examples/agent-transcript/main.ts', ...args], {
      cwd: ROOT,
      encoding: 'utf8',
      env: { ...process.env, INIT_CWD: ROOT },
      timeout: 60_000,
    });

  it('replays every bundled transcript and exits 0; --diagram adds the statechart in Mermaid', () => {
    const r = run(['--diagram']);
    expect(r.stderr).not.toMatch(/rxslice replay:/);
    expect(r.status).toBe(0);
    const bundled = readdirSync(DATA).filter((f) => f.endsWith('.jsonl'));
    expect(bundled.length).toBeGreaterThanOrEqual(6);
    for (const file of bundled) expect(r.stdout).toContain(`\n${file}\n`.trimStart());
    expect(r.stdout).toContain('events/s (replay only, parse excluded)');
    expect(r.stdout).toMatch(/tool calls {3}242 \(12 errors, 0 without result\)/);
    expect(r.stdout).toMatch(/notify {7}5 failed calls: 4 delivered, 1 compensated/);
    expect(r.stdout).toMatch(/windows {6}messages {3}258 kept, 0 evicted {2}count\(500, fifo\)/);
    expect(r.stdout).toMatch(/phases {7}5h 01m 09s from the first to the last timestamp, 3 prompts; ends in waitingForUser/);
    expect(r.stdout).toContain('\nphase statechart "agentPhase" (Mermaid):\nstateDiagram-v2\n');
    expect(r.stdout).toContain('working --> waitingForUser: transcript/systemMessageAdded [endsTurn]');
  });

  it('a nonexistent path: a clear message on stderr and exit code 1', () => {
    const r = run(['does-not-exist.jsonl']);
    expect(r.status).toBe(1);
    expect(r.stderr).toBe('rxslice replay: "does-not-exist.jsonl" does not exist; expected Claude Code transcripts (.jsonl files, or directories of them)\n');
    expect(r.stdout).toBe('');
  });

  it('a user transcript with bad lines is replayed, bad lines counted by reason, exit 0', () => {
    const file = path.join(tmp, 'mine.jsonl');
    writeFileSync(file, [user('hi'), '{oops', line({ type: 'custom-title', title: 't' })].join('\n'));
    const r = run([file]);
    expect(r.status).toBe(0);
    expect(r.stdout).toContain(file);
    expect(r.stdout).toMatch(/3 read, 2 gave no event/);
    expect(r.stdout).toMatch(/1 {2}invalid JSON/);
    expect(r.stdout).toMatch(/1 {2}unknown line type "custom-title"/);
  });
});
