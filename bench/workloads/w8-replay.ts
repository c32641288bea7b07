/**
 * Workload 8 — real replay: every Claude Code transcript in the shared data directory,
 * parsed once by the example's parser (outside the timing), replayed in a cycle through the
 * example's session until 200,000 events were dispatched. The session is the example's own
 * `createTranscriptSession()`: validation `'always'`, its slices with their windows (messages,
 * toolCalls), its statechart and notify effect, its `TranscriptClock` moved to each event's
 * timestamp as `replayTranscript` does (the clock never goes back, so later cycles do not move
 * it), and three of its computed slices subscribed (token summary, task summary, tool-call
 * totals). The floor is a hand-written loop over the same events doing the same counting
 * (token totals by the example's rule, the plan, tool calls, and a "subscriber" call per
 * change). Reports ns per event and events/s.
 *
 * Checks against the plain loop: token totals and responses, plan progress, tool calls made,
 * and how many times the token-summary and task-summary subscribers were called.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import type { Event } from '../../src/index';
import { createTranscriptSession } from '../../src/transcripts/replay';
import { parseTranscript, splitLines } from '../../src/transcripts/parse';
import { TaskSummary, TokenSummary, ToolCallTotals } from '../../src/transcripts/computed';
import { TranscriptClock, timestampOf } from '../../src/transcripts/clock';
import type { PlanItem, TokenTotals } from '../../src/transcripts/slices';
import type { Todo, TokenUsage as Usage } from '../../src/transcripts/events';
import { check, checkEqual, measure, nowMs, type Impl, type RunResult } from '../lib/measure';
import type { Workload } from './workload';

/**
 * Where the transcripts are: `BENCH_TRANSCRIPTS` if set, else the full corpus of this project's
 * machines when present, else the transcripts bundled in examples/data (MIT; see its README).
 */
export const TRANSCRIPTS_DIR =
  process.env['BENCH_TRANSCRIPTS'] ??
  (existsSync('/work/shared/data/transcripts/claude-code') ? '/work/shared/data/transcripts/claude-code' : fileURLToPath(new URL('../../examples/data', import.meta.url)));
/** Events dispatched in the timed run. */
export const REPLAY_EVENTS = 200_000;

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

/** What both contenders report after a run, compared with each other. */
interface ReplayOutcome {
  readonly ms: number;
  readonly tokens: number;
  readonly responses: number;
  readonly plan: string;
  readonly toolCalls: number;
  readonly tokenCalls: number;
  readonly planCalls: number;
  /** The session replayed into (kept alive through the timed run, see `measure`). */
  readonly store?: unknown;
}

function rxsliceReplay(events: readonly Event[], ops: number, validation: 'always' | 'off'): ReplayOutcome {
  const session = createTranscriptSession({ validation });
  const clock = session.scheduler instanceof TranscriptClock ? session.scheduler : undefined;
  let tokenCalls = 0;
  let planCalls = 0;
  let totalsCalls = 0;
  const tokens = session.computed(TokenSummary);
  const task = session.computed(TaskSummary);
  const totals = session.computed(ToolCallTotals);
  tokens.value$.subscribe(() => tokenCalls++);
  task.value$.subscribe(() => planCalls++);
  totals.value$.subscribe(() => totalsCalls++);
  tokenCalls = planCalls = totalsCalls = 0;
  const n = events.length;
  const t0 = nowMs();
  for (let k = 0; k < ops; k++) {
    const event = events[k % n]!;
    if (clock !== undefined) {
      const at = timestampOf(event);
      if (at !== undefined) clock.advanceTo(at);
    }
    session.dispatch(event);
  }
  clock?.finish();
  const ms = nowMs() - t0;
  check(totalsCalls > 0, 'the tool-call-totals subscriber was never called');
  const t = tokens.latest();
  const s = task.latest();
  const outcome = {
    ms,
    tokens: t.total,
    responses: t.responses,
    plan: `${s.completed}/${s.total}`,
    toolCalls: totals.latest().total,
    tokenCalls,
    planCalls,
    store: session,
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
  let toolCalls = 0;
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
        tokenCalls++; // the session's token totals change (a new version) on every line with usage
        break;
      }
      case 'transcript/toolCalled':
        toolCalls++;
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
        planCalls++; // each TodoWrite is a new plan item
        break;
      default:
        break;
    }
  }
  const ms = nowMs() - t0;
  return { ms, tokens: totalOf(tokens), responses: tokens.responses, plan: progressOf(plan.todos), toolCalls, tokenCalls, planCalls };
}

function checked(outcome: ReplayOutcome, events: readonly Event[], ops: number): RunResult {
  const expected = plainReplay(events, ops);
  checkEqual(outcome.tokens, expected.tokens, 'total tokens');
  checkEqual(outcome.responses, expected.responses, 'API responses counted');
  checkEqual(outcome.plan, expected.plan, 'plan progress');
  checkEqual(outcome.toolCalls, expected.toolCalls, 'tool calls made');
  checkEqual(outcome.tokenCalls, expected.tokenCalls, 'calls of the total-tokens subscriber');
  checkEqual(outcome.planCalls, expected.planCalls, 'calls of the plan-progress subscriber');
  return { ms: outcome.ms, extra: { eventsPerSecond: (ops / outcome.ms) * 1000, corpusEvents: events.length }, store: outcome.store };
}

/** Timed replays of the full count per measurement (the median is reported). */
const REPLAY_RUNS = 5;

const impl =
  (replay: (events: readonly Event[], ops: number) => ReplayOutcome): Impl =>
  () => {
    const { events } = loadCorpus();
    return measure({ ops: REPLAY_EVENTS, budgetMs: Infinity, timedRuns: REPLAY_RUNS }, (ops) => checked(replay(events, ops), events, ops));
  };

export const replayWorkload: Workload = {
  id: 'replay',
  number: '8',
  title: 'Real replay: Claude Code transcripts cycled through the example session until 200,000 events',
  unit: 'ns/event',
  // Each measurement already times REPLAY_RUNS full replays (one takes about a second here).
  maxRounds: 1,
  columns: [
    { key: 'eventsPerSecond', label: 'events/s', digits: 0 },
    { key: 'corpusEvents', label: 'events per cycle', digits: 0 },
  ],
  notes: [
    `One round; within it, each contender's figure is the median of ${REPLAY_RUNS} timed replays of the full count (each on a fresh session after a full gc), after warm-up replays of 10,000 events.`,
    `Transcripts: every .jsonl file in ${TRANSCRIPTS_DIR}, parsed once before timing; events the example session rejects are left out for both.`,
    'rxslice: the example\'s `createTranscriptSession()` as it is (validation `always`, its windowed logs, statechart, notify effect and `TranscriptClock` advanced per event), with its `TokenSummary`, `TaskSummary` and `ToolCallTotals` computed slices subscribed. `rxslice (validation off)` is the same with `validation: \'off\'`.',
    'Plain loop: a `switch` over event types with the example\'s token rule, a Map of tool calls, the plan, and a count per change of the token totals and the plan; no validation, no windows, no statechart or effect.',
  ],
  contenders: {
    plain: impl((events, ops) => plainReplay(events, ops)),
    rxslice: impl((events, ops) => rxsliceReplay(events, ops, 'always')),
    'rxslice-novalidation': impl((events, ops) => rxsliceReplay(events, ops, 'off')),
  },
};
