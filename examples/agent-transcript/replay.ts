/**
 * Replays a Claude Code transcript through an rxslice session and reports what it found.
 * Pure: no printing, no file access (the CLI in `main.ts` reads files, `report.ts` formats).
 */
import { performance } from 'node:perf_hooks';
import { createSession, isRxSliceError, type Event, type Session, type SessionOptions } from '../../src/index';
import { transcriptEvents } from './events';
import { parseTranscript } from './parse';
import { Plan, TokenUsage, ToolCalls, transcriptSlices, type TokenTotals } from './slices';
import type { Todo } from './events';

/** Options of {@link createTranscriptSession}: any session option; `slices` are added after the example's. */
export type TranscriptSessionOptions = Partial<SessionOptions>;

/**
 * Creates a session holding the example's slices (messages, toolCalls, plan, tokenUsage),
 * validating every event against its schema (`validation: 'always'`) unless overridden.
 *
 * @remarks Extra `slices` and `events` are registered after the example's, so their reducers
 * run after the example's for the same event. The caller owns the session (`dispose()` it).
 * @example
 * ```ts
 * const session = createTranscriptSession({ slices: [MyToolStats] });
 * session.dispatch(ToolCalled({ toolUseId: 't1', name: 'Bash', input: {}, messageId: 'm1', timestamp: null }));
 * session.slice(ToolCalls).latest()?.status; // 'pending'
 * ```
 */
export function createTranscriptSession(options: TranscriptSessionOptions = {}): Session {
  return createSession({
    validation: 'always',
    ...options,
    slices: [...transcriptSlices, ...(options.slices ?? [])],
    events: [...transcriptEvents, ...(options.events ?? [])],
  });
}

/** Calls and failures of one tool. `pending` calls never got a result. */
export interface ToolStats {
  readonly name: string;
  readonly calls: number;
  readonly errors: number;
  readonly pending: number;
}

/** The final plan and its progress; `undefined` in the report when no `TodoWrite` was made. */
export interface PlanReport {
  readonly todos: readonly Todo[];
  readonly completed: number;
  readonly inProgress: number;
  readonly pending: number;
  readonly updatedAt: string | null;
}

/** How fast the session took the events. */
export interface ReplayTiming {
  /** Time to parse the lines into events (ms, `performance.now()`). */
  readonly parseMs: number;
  /** Time to dispatch the events through the session, validation included (ms). */
  readonly replayMs: number;
  /** Dispatched events / replay seconds; parsing is excluded. */
  readonly eventsPerSecond: number;
}

/** Everything the replay of one transcript found. Counts are exact; maps are sorted by count, descending. */
export interface ReplayReport {
  readonly source: string;
  /** Lines read (a final line break does not start a line). */
  readonly lines: number;
  /** Lines that gave no event (each has at least one skip reason). */
  readonly skippedLines: number;
  /** Events dispatched and committed. */
  readonly events: number;
  readonly eventsByType: ReadonlyMap<string, number>;
  /** Skip reasons (lines and parts of lines, and events the session rejected) with their counts. */
  readonly skipped: ReadonlyMap<string, number>;
  readonly tools: readonly ToolStats[];
  readonly toolCalls: { readonly total: number; readonly errors: number; readonly pending: number };
  readonly plan: PlanReport | undefined;
  readonly tokens: Omit<TokenTotals, 'lastMessageId' | 'lastUsage'>;
  readonly timing: ReplayTiming;
}

/** Options of {@link replayTranscript}. */
export interface ReplayOptions {
  /** Name of the transcript in the report (a file name). */
  readonly source: string;
  /** A session to replay into (created with {@link createTranscriptSession}); the caller disposes it. Default: a new one, disposed after the report is read. */
  readonly session?: Session;
}

const byCountDesc = (counts: Map<string, number>): ReadonlyMap<string, number> =>
  new Map([...counts].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)));

const bump = (counts: Map<string, number>, key: string): void => {
  counts.set(key, (counts.get(key) ?? 0) + 1);
};

/**
 * Parses the transcript's lines into events, dispatches them one by one into a session and
 * reads the report from its slices.
 *
 * @remarks Synchronous. Never throws on bad input: unparseable lines are counted by reason
 * (see `parseLine`), and an event the session rejects (`InvalidEventError`, `ReducerError`) is
 * counted as `rejected by the session (<code>): <event type>` and the replay goes on.
 * Throughput: `performance.now()` is read around the dispatch loop only, so `eventsPerSecond`
 * covers validation, reducers and commits, and excludes parsing (reported as `parseMs`).
 * @param lines - The transcript's lines (see `splitLines`).
 * @example
 * ```ts
 * const report = replayTranscript(splitLines(readFileSync(file, 'utf8')), { source: file });
 * report.toolCalls; // { total: 150, errors: 5, pending: 0 }
 * ```
 */
export function replayTranscript(lines: readonly string[], options: ReplayOptions): ReplayReport {
  const t0 = performance.now();
  const parsed = parseTranscript(lines);
  const parseMs = performance.now() - t0;

  const session = options.session ?? createTranscriptSession();
  const skipped = new Map(parsed.skipped);
  const dispatched: Event[] = [];
  const start = performance.now();
  for (const event of parsed.events) {
    try {
      session.dispatch(event);
      dispatched.push(event);
    } catch (error) {
      const code = isRxSliceError(error) ? error.code : 'UNKNOWN';
      bump(skipped, `rejected by the session (${code}): ${event.type}`);
    }
  }
  const replayMs = performance.now() - start;

  const eventsByType = new Map<string, number>();
  for (const event of dispatched) bump(eventsByType, event.type);
  const report: ReplayReport = {
    source: options.source,
    lines: parsed.lines,
    skippedLines: parsed.skippedLines,
    events: dispatched.length,
    eventsByType: byCountDesc(eventsByType),
    skipped: byCountDesc(skipped),
    ...readToolStats(session),
    plan: readPlan(session),
    tokens: readTokens(session),
    timing: { parseMs, replayMs, eventsPerSecond: replayMs > 0 ? dispatched.length / (replayMs / 1000) : 0 },
  };
  if (options.session === undefined) session.dispose();
  return report;
}

function readToolStats(session: Session): Pick<ReplayReport, 'tools' | 'toolCalls'> {
  const stats = new Map<string, { calls: number; errors: number; pending: number }>();
  let errors = 0;
  let pending = 0;
  const calls = session.slice(ToolCalls).all();
  for (const call of calls) {
    let s = stats.get(call.name);
    if (s === undefined) stats.set(call.name, (s = { calls: 0, errors: 0, pending: 0 }));
    s.calls++;
    if (call.status === 'error') {
      s.errors++;
      errors++;
    } else if (call.status === 'pending') {
      s.pending++;
      pending++;
    }
  }
  const tools = [...stats]
    .map(([name, s]) => ({ name, ...s }))
    .sort((a, b) => b.calls - a.calls || (a.name < b.name ? -1 : 1));
  return { tools, toolCalls: { total: calls.length, errors, pending } };
}

function readPlan(session: Session): PlanReport | undefined {
  const plan = session.slice(Plan).latest();
  if (plan === undefined || plan.toolUseId === null) return undefined;
  const count = (status: Todo['status']): number => plan.todos.filter((t) => t.status === status).length;
  return {
    todos: plan.todos,
    completed: count('completed'),
    inProgress: count('in_progress'),
    pending: count('pending'),
    updatedAt: plan.updatedAt,
  };
}

function readTokens(session: Session): ReplayReport['tokens'] {
  const t = session.slice(TokenUsage).latest();
  if (t === undefined) return { input: 0, output: 0, cacheCreation: 0, cacheRead: 0, responses: 0 };
  return { input: t.input, output: t.output, cacheCreation: t.cacheCreation, cacheRead: t.cacheRead, responses: t.responses };
}
