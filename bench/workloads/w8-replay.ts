/**
 * Workload 8 — real replay: every Claude Code transcript in the shared data directory,
 * parsed once by the example's parser (outside the timing), replayed in a cycle through the
 * example's session until 200,000 events were dispatched. The session is the example's
 * (`createTranscriptSession`: validation `'always'`, its four slices) with count windows of
 * 1,000 on its two logs and three computed slices subscribed (total tokens, plan progress,
 * last tool call). The floor is a hand-written loop over the same events doing the same
 * counting (token totals by the example's rule, the plan, the same derived values, with a
 * "subscriber" called when a derived value changes). Reports ns per event and events/s.
 *
 * Checks: final token totals and responses, plan progress, and how many times the total-tokens
 * and plan-progress subscribers were called, all equal to the plain loop's.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { computed } from '../../src/computed/computed';
import { defineComputed } from '../../src/computed/define-computed';
import { SliceWindow } from '../../src/windows/slice-window';
import type { Event } from '../../src/index';
import { createTranscriptSession } from '../../examples/agent-transcript/replay';
import { parseTranscript, splitLines } from '../../examples/agent-transcript/parse';
import { Messages, Plan, TokenUsage, ToolCalls, type PlanItem, type TokenTotals } from '../../examples/agent-transcript/slices';
import type { Todo, TokenUsage as Usage } from '../../examples/agent-transcript/events';
import { check, checkEqual, measure, nowMs, type Impl, type RunResult } from '../lib/measure';
import type { Workload } from './workload';

/** Where the transcripts are (override with `BENCH_TRANSCRIPTS`). */
export const TRANSCRIPTS_DIR = process.env['BENCH_TRANSCRIPTS'] ?? '/work/shared/data/transcripts/claude-code';
/** Events dispatched in the timed run. */
export const REPLAY_EVENTS = 200_000;
/** Count window of the example's two logs. */
export const LOG_WINDOW = 1_000;

interface Corpus {
  readonly events: readonly Event[];
  readonly files: number;
}

let corpus: Corpus | undefined;

/**
 * Parses every transcript once, in file-name order, keeping the events an example session
 * accepts (an event it rejects would be counted by the plain loop but not by the session).
 */
function loadCorpus(): Corpus {
  if (corpus !== undefined) return corpus;
  const files = readdirSync(TRANSCRIPTS_DIR).filter((f) => f.endsWith('.jsonl')).sort();
  check(files.length > 0, `no .jsonl transcript in ${TRANSCRIPTS_DIR}`);
  const probe = createTranscriptSession();
  const events: Event[] = [];
  for (const file of files) {
    for (const event of parseTranscript(splitLines(readFileSync(join(TRANSCRIPTS_DIR, file), 'utf8'))).events) {
      try {
        probe.dispatch(event);
        events.push(event);
      } catch {
        // Rejected by the example's schemas: left out for both contenders.
      }
    }
  }
  probe.dispose();
  check(events.length > 0, 'the transcripts gave no event');
  return (corpus = { events, files: files.length });
}

const totalOf = (t: { input: number; output: number; cacheCreation: number; cacheRead: number }): number =>
  t.input + t.output + t.cacheCreation + t.cacheRead;
const progressOf = (todos: readonly Todo[]): string => `${todos.filter((t) => t.status === 'completed').length}/${todos.length}`;

const TotalTokens = defineComputed('bench/totalTokens', [TokenUsage], (items) => totalOf(items[items.length - 1]!));
const PlanProgress = defineComputed('bench/planProgress', [Plan], (items) => progressOf(items[items.length - 1]!.todos));
const LastToolCall = defineComputed('bench/lastToolCall', [ToolCalls], (calls) => {
  const last = calls[calls.length - 1];
  return last === undefined ? 'none' : `${last.name}:${last.status}`;
});

/** What both contenders report after a run, compared with each other. */
interface ReplayOutcome {
  readonly ms: number;
  readonly tokens: number;
  readonly responses: number;
  readonly plan: string;
  readonly tokenCalls: number;
  readonly planCalls: number;
}

function rxsliceReplay(events: readonly Event[], ops: number, validation: 'always' | 'off'): ReplayOutcome {
  const session = createTranscriptSession({ validation });
  session.slice(Messages).configure({ window: SliceWindow.count(LOG_WINDOW) });
  session.slice(ToolCalls).configure({ window: SliceWindow.count(LOG_WINDOW) });
  let tokenCalls = 0;
  let planCalls = 0;
  let toolCalls = 0;
  computed(session, TotalTokens).value$.subscribe(() => tokenCalls++);
  computed(session, PlanProgress).value$.subscribe(() => planCalls++);
  computed(session, LastToolCall).value$.subscribe(() => toolCalls++);
  tokenCalls = planCalls = toolCalls = 0;
  const n = events.length;
  const t0 = nowMs();
  for (let k = 0; k < ops; k++) session.dispatch(events[k % n]!);
  const ms = nowMs() - t0;
  check(toolCalls > 0, 'the last-tool-call subscriber was never called');
  check(session.slice(ToolCalls).size <= LOG_WINDOW && session.slice(Messages).size <= LOG_WINDOW, 'windows hold');
  const t = session.slice(TokenUsage).latest()!;
  const outcome = {
    ms,
    tokens: totalOf(t),
    responses: t.responses,
    plan: progressOf(session.slice(Plan).latest()!.todos),
    tokenCalls,
    planCalls,
  };
  session.dispose();
  return outcome;
}

/** The hand-written floor: a switch over the event types, the example's counting rules, no validation. */
function plainReplay(events: readonly Event[], ops: number): ReplayOutcome {
  const ZERO: Usage = { input: 0, output: 0, cacheCreation: 0, cacheRead: 0 };
  let tokens: TokenTotals = { ...ZERO, responses: 0, lastMessageId: null, lastUsage: null };
  let plan: PlanItem = { todos: [], toolUseId: null, updatedAt: null };
  const calls = new Map<string, { name: string; status: 'pending' | 'ok' | 'error' }>();
  let messages = 0;
  let unmatched = 0;
  let lastTotal = totalOf(tokens);
  let lastProgress = progressOf(plan.todos);
  let tokenCalls = 0;
  let planCalls = 0;
  const n = events.length;
  const t0 = nowMs();
  for (let k = 0; k < ops; k++) {
    const event = events[k % n]!;
    const p = event.payload as Record<string, any>;
    switch (event.type) {
      case 'transcript/userMessageAdded':
        messages++;
        break;
      case 'transcript/assistantMessageAdded': {
        messages++;
        const u = p['usage'] as Usage | null;
        if (u === null) break;
        const same = p['messageId'] === tokens.lastMessageId;
        const prev = same ? (tokens.lastUsage ?? ZERO) : ZERO;
        tokens = {
          input: tokens.input - prev.input + u.input,
          output: tokens.output - prev.output + u.output,
          cacheCreation: tokens.cacheCreation - prev.cacheCreation + u.cacheCreation,
          cacheRead: tokens.cacheRead - prev.cacheRead + u.cacheRead,
          responses: same ? tokens.responses : tokens.responses + 1,
          lastMessageId: p['messageId'] as string,
          lastUsage: u,
        };
        break;
      }
      case 'transcript/toolCalled':
        calls.set(p['toolUseId'] as string, { name: p['name'] as string, status: 'pending' });
        break;
      case 'transcript/toolSucceeded':
      case 'transcript/toolFailed': {
        const call = calls.get(p['toolUseId'] as string);
        if (call === undefined) unmatched++;
        else call.status = event.type === 'transcript/toolFailed' ? 'error' : 'ok';
        break;
      }
      case 'transcript/todosUpdated':
        plan = { todos: p['todos'] as Todo[], toolUseId: p['toolUseId'] as string, updatedAt: p['timestamp'] as string | null };
        break;
      default:
        break;
    }
    const total = totalOf(tokens);
    if (total !== lastTotal) {
      lastTotal = total;
      tokenCalls++;
    }
    const progress = progressOf(plan.todos);
    if (progress !== lastProgress) {
      lastProgress = progress;
      planCalls++;
    }
  }
  const ms = nowMs() - t0;
  return { ms, tokens: totalOf(tokens), responses: tokens.responses, plan: progressOf(plan.todos), tokenCalls, planCalls };
}

function checked(outcome: ReplayOutcome, events: readonly Event[], ops: number): RunResult {
  const expected = plainReplay(events, ops);
  checkEqual(outcome.tokens, expected.tokens, 'total tokens');
  checkEqual(outcome.responses, expected.responses, 'API responses counted');
  checkEqual(outcome.plan, expected.plan, 'plan progress');
  checkEqual(outcome.tokenCalls, expected.tokenCalls, 'calls of the total-tokens subscriber');
  checkEqual(outcome.planCalls, expected.planCalls, 'calls of the plan-progress subscriber');
  return { ms: outcome.ms, extra: { eventsPerSecond: (ops / outcome.ms) * 1000, corpusEvents: events.length } };
}

const impl =
  (replay: (events: readonly Event[], ops: number) => ReplayOutcome): Impl =>
  () => {
    const { events } = loadCorpus();
    return measure({ ops: REPLAY_EVENTS, budgetMs: Infinity, timedRuns: 1 }, (ops) => checked(replay(events, ops), events, ops));
  };

export const replayWorkload: Workload = {
  id: 'replay',
  number: '8',
  title: 'Real replay: Claude Code transcripts cycled through the example session until 200,000 events',
  unit: 'ns/event',
  columns: [
    { key: 'eventsPerSecond', label: 'events/s', digits: 0 },
    { key: 'corpusEvents', label: 'events per cycle', digits: 0 },
  ],
  notes: [
    `Transcripts: every .jsonl file in ${TRANSCRIPTS_DIR}, parsed once before timing; events the example session rejects are left out for both.`,
    'rxslice: `createTranscriptSession()` (validation `always`), `SliceWindow.count(1000)` on `messages` and `toolCalls`, three computed slices subscribed (total tokens, plan progress, last tool call). `rxslice (validation off)` is the same with `validation: \'off\'`.',
    'Plain loop: a `switch` over event types with the example\'s token rule, a Map of tool calls and the plan, computing the same derived values after each event; no validation, no windows (it keeps no message list).',
  ],
  contenders: {
    plain: impl((events, ops) => plainReplay(events, ops)),
    rxslice: impl((events, ops) => rxsliceReplay(events, ops, 'always')),
    'rxslice-novalidation': impl((events, ops) => rxsliceReplay(events, ops, 'off')),
  },
};
