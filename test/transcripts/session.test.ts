/**
 * The transcript session's newer layers against independent scans of the bundled
 * transcripts: computed slices, windows, the notify effect (retry + compensation) and the
 * agent-phase statechart.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { EffectCompensated, EffectRetrying, type Effect } from '../../src/index';
import { TranscriptClock, TranscriptTime } from '../../src/transcripts/clock';
import { TaskSummary, TokenSummary, ToolCallTotals, ToolNames, ToolStatsOf } from '../../src/transcripts/computed';
import { TodosUpdated, ToolCalled, ToolFailed, ToolSucceeded } from '../../src/transcripts/events';
import {
  DEAD_BUCKET,
  fnv1a,
  NOTIFY_MAX_ATTEMPTS,
  NotificationChannel,
  NotificationDelivered,
  Notifications,
  rejectionsFor,
} from '../../src/transcripts/notifications';
import { splitLines } from '../../src/transcripts/parse';
import { formatReport } from '../../src/transcripts/report';
import { AgentPhases, phaseDurations, PHASES } from '../../src/transcripts/phases';
import { createTranscriptSession, replayTranscript, type TranscriptSession } from '../../src/transcripts/replay';
import { FAILED_CALLS_KEPT, MESSAGES_KEPT, Messages, RECENT_CALLS_KEPT, ToolCalls, ToolStats } from '../../src/transcripts/slices';
import { scanTranscript } from './transcript-scan';

const DATA = fileURLToPath(new URL('../../examples/data/', import.meta.url));
const BIG_A = 'spotter-4d5611e5-241a-462a-8d15-5122611a9569.jsonl';
const BIG_B = 'spotter-ae4a77f8-aedd-4bc1-888f-c94edc91af04.jsonl';
const BUNDLED = readdirSync(DATA)
  .filter((f) => f.endsWith('.jsonl'))
  .sort();
const text = (file: string): string => readFileSync(path.join(DATA, file), 'utf8');

const replayInto = (session: TranscriptSession, file: string) => replayTranscript(splitLines(text(file)), { source: file, session });

describe.each([BIG_A, BIG_B])('computed slices of %s equal a plain JSON scan', (file) => {
  const scan = scanTranscript(text(file));
  const session = createTranscriptSession();
  let editEmissions = 0;
  session.computed(ToolStatsOf)('Edit').value$.subscribe(() => editEmissions++);
  replayInto(session, file);

  it('per-tool statistics (the family, one member per tool): calls, errors, error rate', () => {
    const statsOf = session.computed(ToolStatsOf);
    expect(new Set(session.computed(ToolNames).latest())).toEqual(new Set(scan.byTool.keys()));
    for (const [name, expected] of scan.byTool) {
      const stats = statsOf(name).latest();
      expect({ name, calls: stats.calls, errors: stats.errors }).toEqual({ name, ...expected });
      expect(stats.pending).toBe(0);
      expect(stats.errorRate).toBeCloseTo(expected.errors / expected.calls, 12);
    }
    const names = session.computed(ToolNames).latest();
    const calls = names.map((n) => statsOf(n).latest().calls);
    expect(calls).toEqual([...calls].sort((a, b) => b - a));
  });

  it('a member emits only when its own tool changes: once on subscribe, then per Edit call and per Edit result', () => {
    const edits = scan.byTool.get('Edit')?.calls ?? 0;
    expect(edits).toBeGreaterThan(0);
    expect(editEmissions).toBe(1 + 2 * edits);
  });

  it('tool-call totals and token totals', () => {
    expect(session.computed(ToolCallTotals).latest()).toEqual({ total: scan.toolUse, errors: scan.errors, pending: 0 });
    const t = scan.tokens;
    expect(session.computed(TokenSummary).latest()).toEqual({
      ...t,
      total: t.input + t.output + t.cacheCreation + t.cacheRead,
      responses: scan.responses,
    });
  });
});

describe('task summary', () => {
  it('progress and blocking items (in progress first, then pending) of the latest TodoWrite', () => {
    const session = createTranscriptSession();
    const summary = session.computed(TaskSummary);
    expect(summary.latest()).toMatchObject({ hasPlan: false, total: 0, progressPercent: 0, blocking: [] });
    const todo = (content: string, status: 'pending' | 'in_progress' | 'completed') => ({ content, status, activeForm: null });
    session.dispatch(
      TodosUpdated({
        toolUseId: 't1',
        timestamp: null,
        todos: [todo('a', 'completed'), todo('b', 'pending'), todo('c', 'in_progress'), todo('d', 'pending')],
      }),
    );
    expect(summary.latest()).toMatchObject({
      hasPlan: true,
      total: 4,
      completed: 1,
      inProgress: 1,
      pending: 2,
      progressPercent: 25,
      blocking: [todo('c', 'in_progress'), todo('b', 'pending'), todo('d', 'pending')],
    });
    session.dispose();
  });

  it('agentlogs-todos ends with every todo completed and nothing blocking', () => {
    const report = replayTranscript(splitLines(text('agentlogs-todos.jsonl')), { source: 'todos' });
    expect(report.task).toMatchObject({ hasPlan: true, total: 3, completed: 3, progressPercent: 100, blocking: [] });
  });
});

describe('windows', () => {
  it('after every bundled transcript replayed 3 times into one session: messages <= 500, tool calls <= 1000, every failed call kept, counts exact', () => {
    const session = createTranscriptSession();
    const evicted = new Map<string, number>();
    session.evicted$.subscribe((e) => evicted.set(e.slice, (evicted.get(e.slice) ?? 0) + e.items.length));
    const scans = BUNDLED.map((f) => scanTranscript(text(f)));
    const total = (pick: (s: ReturnType<typeof scanTranscript>) => number) => 3 * scans.reduce((acc, s) => acc + pick(s), 0);
    let reportedEvictions = 0;
    for (let round = 0; round < 3; round++) {
      for (const f of BUNDLED) reportedEvictions += replayInto(session, f).windows.reduce((acc, w) => acc + w.evicted, 0);
    }
    const messages = total((s) => s.messages);
    const calls = total((s) => s.toolUse);
    const failures = total((s) => s.errors);
    expect(messages).toBeGreaterThan(MESSAGES_KEPT);
    expect(calls).toBeGreaterThan(FAILED_CALLS_KEPT + RECENT_CALLS_KEPT);
    expect(failures).toBeLessThanOrEqual(FAILED_CALLS_KEPT);

    expect(session.slice(Messages).size).toBe(MESSAGES_KEPT);
    expect(evicted.get('messages')).toBe(messages - MESSAGES_KEPT);
    const log = session.slice(ToolCalls).all();
    expect(log.length).toBeLessThanOrEqual(1000);
    expect(log.filter((c) => c.status === 'error')).toHaveLength(failures);
    // the newest 900 calls, and before them only the failures older than those
    const recentFailures = log.slice(-RECENT_CALLS_KEPT).filter((c) => c.status === 'error').length;
    expect(log.slice(0, -RECENT_CALLS_KEPT).every((c) => c.status === 'error')).toBe(true);
    expect(log).toHaveLength(RECENT_CALLS_KEPT + failures - recentFailures);
    expect(evicted.get('toolCalls')).toBe(calls - log.length);
    expect(reportedEvictions).toBe((evicted.get('messages') ?? 0) + (evicted.get('toolCalls') ?? 0));

    // The counters are state, not read from the windowed log: exact over all three rounds.
    expect(session.computed(ToolCallTotals).latest()).toEqual({ total: calls, errors: failures, pending: 0 });
    expect(session.computed(ToolStatsOf)('Bash').latest().calls).toBe(total((s) => s.byTool.get('Bash')?.calls ?? 0));
    session.dispose();
  });

  it('always keeps failures, plus the recent 900: past 100 failed calls the newest 100 stay, beside the newest 900 calls', () => {
    const session = createTranscriptSession();
    const call = (i: number) => ToolCalled({ toolUseId: `c${i}`, name: 'Bash', input: {}, messageId: `m${i}`, timestamp: null });
    for (let i = 0; i < 1500; i++) {
      session.dispatch(call(i));
      session.dispatch(i % 10 === 0 ? ToolFailed({ toolUseId: `c${i}`, error: 'boom', timestamp: null }) : ToolSucceeded({ toolUseId: `c${i}`, content: '', timestamp: null }));
    }
    const log = session.slice(ToolCalls).all();
    const ids = log.map((c) => Number(c.toolUseId.slice(1)));
    const failed = log.filter((c) => c.status === 'error').map((c) => Number(c.toolUseId.slice(1)));
    expect(failed).toHaveLength(FAILED_CALLS_KEPT);
    expect(failed[0]).toBe(500); // 150 failures (every 10th call): the oldest 50 went
    // the 10 failures older than the newest 900 (500..590), then the newest 900 calls (600..1499)
    expect(ids).toEqual([...Array.from({ length: 10 }, (_, k) => 500 + 10 * k), ...Array.from({ length: RECENT_CALLS_KEPT }, (_, k) => 600 + k)]);
    expect(session.slice(ToolStats).latest()?.tools).toEqual([{ name: 'Bash', calls: 1500, ok: 1350, errors: 150 }]);
    session.dispose();
  });
});

describe.each([BIG_A, BIG_B, 'spotter-short.jsonl'])('notifications of %s', (file) => {
  const scan = scanTranscript(text(file));
  const channel = new NotificationChannel();
  const session = createTranscriptSession({ dependencies: { channel } });
  const requested: Effect[] = [];
  const lifecycle: string[] = [];
  session.effects$.subscribe((e) => requested.push(e));
  session.committed$.subscribe((c) => lifecycle.push(c.event.type));
  const report = replayInto(session, file);
  const { delivered, abandoned } = report.notifications;

  it('the reducer asks for one transcript/notify effect per failed result (effects as data)', () => {
    expect(requested.map((e) => e.type)).toEqual(scan.failedIds.map(() => 'transcript/notify'));
    expect(requested.map((e) => (e.payload as { toolUseId: string }).toolUseId)).toEqual(scan.failedIds);
  });

  it('delivered + compensated = failed tool calls, each exactly once', () => {
    expect(scan.failedIds.length).toBeGreaterThan(0);
    expect(report.notifications.failedCalls).toBe(scan.errors);
    expect(delivered.length + abandoned.length).toBe(scan.errors);
    expect(report.notifications.inFlight).toBe(0);
    const settled = [...delivered, ...abandoned].map((n) => n.toolUseId).sort();
    expect(settled).toEqual([...scan.failedIds].sort());
    expect(new Set(settled).size).toBe(settled.length);
    expect(session.slice(Notifications).size).toBe(scan.errors);
    // The channel holds what the log says was delivered, in the same order.
    expect(channel.delivered.map((d) => d.notification.toolUseId)).toEqual(delivered.map((n) => n.toolUseId));
  });

  it('attempts follow the channel rule: retried on rejection, compensated after the last attempt', () => {
    for (const n of delivered) expect(n.attempts).toBe(rejectionsFor(n.toolUseId) + 1);
    for (const n of abandoned) {
      expect(fnv1a(n.toolUseId) % 8).toBe(DEAD_BUCKET);
      expect(n.attempts).toBe(NOTIFY_MAX_ATTEMPTS);
    }
    const retries = delivered.reduce((acc, n) => acc + n.attempts - 1, 0) + abandoned.length * (NOTIFY_MAX_ATTEMPTS - 1);
    expect(lifecycle.filter((t) => t === EffectRetrying.type)).toHaveLength(retries);
    expect(lifecycle.filter((t) => t === EffectCompensated.type)).toHaveLength(abandoned.length);
    expect(channel.rejected).toBe(retries + abandoned.length);
  });
});

it('the largest transcript shows a first-attempt delivery, a retried delivery and a compensation', () => {
  const { delivered, abandoned } = replayTranscript(splitLines(text(BIG_A)), { source: BIG_A }).notifications;
  expect(delivered.some((n) => n.attempts === 1)).toBe(true);
  expect(delivered.some((n) => n.attempts > 1)).toBe(true);
  expect(abandoned.length).toBeGreaterThan(0);
});

/** Transcript lines with real timestamps, `s` seconds after 2026-01-01T00:00:00Z. */
const at = (s: number) => new Date(Date.UTC(2026, 0, 1) + s * 1000).toISOString();
const j = (o: unknown) => JSON.stringify(o);
const prompt = (s: number, content: string) => j({ type: 'user', uuid: `u${s}`, timestamp: at(s), message: { role: 'user', content } });
const reply = (s: number, id: string, content: unknown[]) =>
  j({ type: 'assistant', uuid: `a${s}`, timestamp: at(s), message: { id, model: 'm', role: 'assistant', content } });
const result = (s: number, id: string, isError = false) =>
  j({ type: 'user', uuid: `r${s}`, timestamp: at(s), message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: 'x', is_error: isError }] } });
const tool = (id: string, name: string, input: object = {}) => ({ type: 'tool_use', id, name, input });
const progress = (s: number) => j({ type: 'progress', timestamp: at(s), data: { type: 'hook_progress' } });
const system = (s: number, subtype: string) => j({ type: 'system', subtype, timestamp: at(s) });

describe('notify retries run in transcript time', () => {
  const idIn = (rejections: number) => {
    for (let i = 0; ; i++) if (rejectionsFor(`toolu_${i}`) === rejections) return `toolu_${i}`;
  };

  it('rejected twice: delivered 1 s + 2 s after the failure, before the lines that come later', () => {
    const id = idIn(2);
    const session = createTranscriptSession();
    const seen: string[] = [];
    session.committed$.subscribe((c) => seen.push(`${(c.at - Date.UTC(2026, 0, 1)) / 1000}s ${c.event.type}`));
    replayTranscript([reply(0, 'm1', [tool(id, 'Bash')]), result(1, id, true), progress(2), progress(10)], { source: 'x', session });
    expect(seen.filter((s) => !s.includes('rxslice.') && !s.includes('progress'))).toEqual([
      '0s transcript/assistantMessageAdded',
      '0s transcript/toolCalled',
      '1s transcript/toolFailed',
      '4s transcript/notificationDelivered',
    ]);
    expect(seen.indexOf('4s transcript/notificationDelivered')).toBeLessThan(seen.indexOf('10s transcript/progressReported'));
    expect(session.slice(Notifications).latest()).toMatchObject({ status: 'delivered', attempts: 3, deliveredAtMs: Date.UTC(2026, 0, 1) + 4000 });
    session.dispose();
  });

  it('a retry due after the last line runs when the replay finishes; with an unmoved clock it stays pending', () => {
    const id = idIn(1);
    const report = replayTranscript([reply(0, 'm1', [tool(id, 'Bash')]), result(1, id, true)], { source: 'x' });
    expect(report.notifications.delivered.map((n) => n.attempts)).toEqual([2]);

    const session = createTranscriptSession();
    session.dispatch(ToolCalled({ toolUseId: id, name: 'Bash', input: {}, messageId: 'm', timestamp: null }));
    session.dispatch(ToolFailed({ toolUseId: id, error: 'boom', timestamp: null }));
    expect(session.slice(Notifications).size).toBe(0);
    expect((session.scheduler as TranscriptClock).pending).toBe(1);
    (session.scheduler as TranscriptClock).finish();
    expect(session.slice(Notifications).all().map((n) => n.status)).toEqual(['delivered']);
    expect(NotificationDelivered.type).toBe('transcript/notificationDelivered');
    session.dispose();
  });
});

describe('subagents (real lines)', () => {
  /** An independent plain JSON scan of the agent_progress lines: tool_use blocks by name, and tool_result blocks with is_error. */
  const scanAgentProgress = (file: string) => {
    const byName = new Map<string, number>();
    let errors = 0;
    for (const l of text(file).split('\n')) {
      if (l.trim() === '') continue;
      const o = JSON.parse(l) as { type?: string; data?: { type?: string; message?: { message?: { content?: unknown } } } };
      if (o.type !== 'progress' || o.data?.type !== 'agent_progress') continue;
      const content = o.data.message?.message?.content;
      for (const b of Array.isArray(content) ? (content as { type: string; name?: string; is_error?: boolean }[]) : []) {
        if (b.type === 'tool_use') byName.set(b.name as string, (byName.get(b.name as string) ?? 0) + 1);
        if (b.type === 'tool_result' && b.is_error === true) errors++;
      }
    }
    return { byName, errors };
  };

  it.each([BIG_A, BIG_B])('%s: the tool calls nested in agent_progress lines are counted as subagent calls, not left out', (file) => {
    const scan = scanAgentProgress(file);
    const report = replayTranscript(splitLines(text(file)), { source: file });
    const total = [...scan.byName.values()].reduce((a, b) => a + b, 0);
    expect(total).toBeGreaterThan(0);
    expect(report.subagentCalls.calls).toBe(total);
    expect(report.subagentCalls.errors).toBe(scan.errors);
    expect(new Map(report.subagentCalls.tools.map((t) => [t.name, t.calls]))).toEqual(scan.byName);
    // The transcript's own calls stay what they were (the Task calls among them).
    expect(report.toolCalls.total).toBe(scanTranscript(text(file)).toolUse);
    expect(formatReport(report)).toContain(`+ ${total} subagent calls in agent_progress lines (${scan.errors} errors)`);
  });

  it("a subagent transcript that ends with the agent's final answer is reported as answered, not as thinking", () => {
    const file = fileURLToPath(new URL('./data/spotter-4d5611e5-241a-462a-8d15-5122611a9569_subagents_agent-a2898e3.jsonl', import.meta.url));
    const lines = splitLines(readFileSync(file, 'utf8'));
    const last = JSON.parse(lines[lines.length - 1] as string) as { type: string; isSidechain: boolean; message: { content: { type: string }[] } };
    expect([last.type, last.isSidechain, last.message.content.map((b) => b.type)]).toEqual(['assistant', true, ['text']]);
    const report = replayTranscript(lines, { source: 'subagent' });
    expect(report.phases.subagent).toBe(true);
    expect(report.phases.current).toBe('responding');
    expect(report.phases.turns).toBe(1);
    expect(formatReport(report)).toContain("1 prompt; a subagent's transcript; ends with its answer (responding)");
    // A main transcript is not taken for a subagent's.
    expect(replayTranscript(splitLines(text(BIG_A)), { source: BIG_A }).phases.subagent).toBe(false);
  });
});

describe('several transcripts in one session (rxslice replay --record a.jsonl b.jsonl)', () => {
  const own = (r: ReturnType<typeof replayTranscript>) => ({
    events: r.events,
    eventsByType: [...r.eventsByType],
    tools: r.tools,
    toolCalls: r.toolCalls,
    task: r.task,
    tokens: r.tokens,
    notifications: r.notifications,
    phases: r.phases,
  });

  it.each([
    ['spotter-short.jsonl', 'agentlogs-crud.jsonl'],
    ['agentlogs-crud.jsonl', 'spotter-short.jsonl'], // four months apart
    ['agentlogs-todos.jsonl', 'spotter-tool_heavy.jsonl'],
    [BIG_A, 'agentlogs-subagent.jsonl'],
  ])('%s then %s: the second report is the second transcript alone, not the run so far, and the time between them is no phase', (first, second) => {
    const session = createTranscriptSession();
    const a = replayTranscript(splitLines(text(first)), { source: first, session });
    const b = replayTranscript(splitLines(text(second)), { source: second, session, earlierTranscripts: 1 });
    const alone = replayTranscript(splitLines(text(second)), { source: second });
    expect(own(a)).toEqual(own(replayTranscript(splitLines(text(first)), { source: first })));
    expect(own(b)).toEqual(own(alone));
    expect(b.earlierTranscripts).toBe(1);
    // The logs go on: what they keep is the whole run's, and the report says so.
    expect(b.windows[0]?.size).toBe(Math.min(MESSAGES_KEPT, session.slice(Messages).size));
    expect(formatReport(b)).toContain("kept: the whole run's (this transcript and the 1 before it)");
    expect(formatReport(b)).toContain('transcript 2 of one session');
    expect(session.slice(Messages).size).toBeGreaterThan(alone.windows[0]?.size ?? 0);
    session.dispose();
  });

  it('without the boundary the second report would mix in the first (the bug this guards against)', () => {
    const session = createTranscriptSession();
    replayTranscript(splitLines(text('agentlogs-crud.jsonl')), { source: 'a', session });
    const mixed = replayTranscript(splitLines(text('spotter-short.jsonl')), { source: 'b', session });
    const alone = replayTranscript(splitLines(text('spotter-short.jsonl')), { source: 'b' });
    expect(mixed.toolCalls.total).toBe(alone.toolCalls.total + 9);
    // agentlogs-crud was recorded four months before spotter-short: the gap went into a phase.
    expect(mixed.phases.spanMs).toBeGreaterThan(alone.phases.spanMs + 24 * 3600_000);
    session.dispose();
  });
});

describe('agent-phase statechart', () => {
  it('walks the chart and counts each phase from its entry to its exit, in transcript time', () => {
    const session = createTranscriptSession();
    const phase = session.machine(AgentPhases);
    const path: string[] = [];
    phase.current$.subscribe((s) => {
      const p = s.basicConfiguration[0] as string;
      if (path[path.length - 1] !== p) path.push(p);
    });
    const report = replayTranscript(
      [
        progress(0), //                                              idle from 0 s
        prompt(1, 'fix the build'), //                               thinking
        reply(3, 'm1', [{ type: 'text', text: 'Let me look.' }]), //   responding
        reply(4, 'm1', [tool('t1', 'Bash'), tool('t2', 'Read')]), // executing, two calls in flight
        result(8, 't1'), //                                          still executing
        progress(5), //                                              a step back in time changes nothing
        result(10, 't2'), //                                         thinking
        reply(12, 'm2', [tool('t3', 'TodoWrite', { todos: [] })]), // planning
        result(13, 't3'), //                                         thinking
        reply(15, 'm3', [{ type: 'text', text: 'Done.' }]), //         responding
        system(16, 'stop_hook_summary'), //                          waitingForUser
        system(16.5, 'turn_duration'), //                            still waiting
        prompt(100, 'and the tests'), //                             thinking
        prompt(101, '[Request interrupted by user]'), //             waitingForUser
        progress(120), //                                            the end: 120 s after the first line
      ],
      { source: 'chart', session },
    );
    expect(path).toEqual([
      'idle',
      'thinking',
      'responding',
      'executing',
      'thinking',
      'planning',
      'thinking',
      'responding',
      'waitingForUser',
      'thinking',
      'waitingForUser',
    ]);
    expect(report.phases).toEqual({
      msIn: { idle: 1000, thinking: 7000, responding: 2000, planning: 1000, executing: 6000, waitingForUser: 103000 },
      current: 'waitingForUser',
      spanMs: 120_000,
      firstMs: Date.UTC(2026, 0, 1),
      lastMs: Date.UTC(2026, 0, 1) + 120_000,
      turns: 2,
      subagent: false,
    });
    expect(phase.toMermaid()).toContain('working --> waitingForUser: transcript/systemMessageAdded [endsTurn]');
    session.dispose();
  });

  it('keeps its clock out of its slice: an event that only moves time changes transcriptTime, not machine/agentPhase (issue 22)', () => {
    const session = createTranscriptSession();
    const machineSlice = `machine/${AgentPhases.name}`;
    const changed: string[][] = [];
    const sub = session.committed$.subscribe((c) => changed.push([...c.changed]));
    replayTranscript([progress(0), prompt(1, 'go'), progress(2), progress(3), system(4, 'local'), progress(2.5)], { source: 'clock', session });
    sub.unsubscribe();
    // progress(0): the clock starts; prompt: the phase changes; progress(2), progress(3) and the
    // system line only move the clock; progress(2.5) is a step back and changes nothing.
    expect(changed.map((c) => [c.includes('transcriptTime'), c.includes(machineSlice)])).toEqual([
      [true, false],
      [true, true],
      [true, false],
      [true, false],
      [true, false],
      [false, false],
    ]);
    expect(session.slice(TranscriptTime).latest()).toEqual({ firstMs: Date.UTC(2026, 0, 1), lastMs: Date.UTC(2026, 0, 1) + 4000 });
    expect(session.machine(AgentPhases).current.context).toEqual({ sinceMs: Date.UTC(2026, 0, 1) + 1000, msIn: { idle: 1000, thinking: 0, responding: 0, planning: 0, executing: 0, waitingForUser: 0 }, turns: 1, inFlight: 0, subagent: false });
    expect(phaseDurations(session.machine(AgentPhases).current, session.slice(TranscriptTime).latest()).msIn.thinking).toBe(3000);
    session.dispose();
  });

  it.each(BUNDLED)('%s: the phase times add up to the transcript span (latest minus first timestamp)', (file) => {
    const scan = scanTranscript(text(file));
    const session = createTranscriptSession();
    const { phases } = replayInto(session, file);
    const sum = PHASES.reduce((acc, p) => acc + phases.msIn[p], 0);
    expect(phases.firstMs).toBe(scan.firstMs);
    expect(phases.lastMs).toBe(scan.maxMs);
    expect(phases.spanMs).toBe((scan.maxMs ?? 0) - (scan.firstMs ?? 0));
    expect(sum).toBe(phases.spanMs);
    expect(phaseDurations(session.machine(AgentPhases).current, session.slice(TranscriptTime).latest())).toEqual(phases);
    session.dispose();
  });
});
