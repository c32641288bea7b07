/**
 * Replays a Claude Code transcript through an rxslice session and reports what it found.
 * Pure: no printing, no file access (the CLI in `main.ts` reads files, `report.ts` formats).
 */
import { performance } from 'node:perf_hooks';
import { createSession, isRxSliceError, type Event, type Session, type SessionOptions, type SliceDef } from '../index';
import { TranscriptClock, TranscriptTime, timestampOf } from './clock';
import { TaskSummary, TokenSummary, ToolCallTotals, ToolNames, ToolStatsOf, type ToolStatistics } from './computed';
import { transcriptEvents, TranscriptStarted } from './events';
import {
  deliverNotification,
  NotificationChannel,
  notificationEvents,
  Notifications,
  Notify,
  type NotificationRecord,
  type TranscriptDeps,
} from './notifications';
import { parseTranscript } from './parse';
import { AgentPhases, phaseDurations, type PhaseDurations } from './phases';
import { Messages, SubagentTools, ToolCalls, transcriptSlices, type SubagentToolsItem } from './slices';

/** A session made by {@link createTranscriptSession}. */
export type TranscriptSession = Session<TranscriptDeps>;

/**
 * Options of {@link createTranscriptSession}: any session option; `slices` and `events` are
 * added after the example's. Defaults: `validation: 'always'`, `scheduler: new TranscriptClock()`,
 * `dependencies: { channel: new NotificationChannel() }`.
 */
export type TranscriptSessionOptions = Partial<SessionOptions<TranscriptDeps>>;

/**
 * Creates a session holding the example's slices (messages and toolCalls logs with windows;
 * plan, tokenUsage and toolStats state; the notifications log), the `agentPhase` statechart
 * (`session.machine(AgentPhases)`) and the handler of the `transcript/notify` effect, validating
 * every event against its schema (`validation: 'always'`) unless overridden.
 *
 * @remarks Its scheduler is a {@link TranscriptClock} unless one is given: time stands still
 * until the replay moves it, so nothing runs behind the caller's back (effect retries wait for
 * `clock.advanceTo` / `clock.finish`). Extra `slices` and `events` are registered after the
 * example's, so their reducers run after the example's for the same event (the machine's last).
 * The caller owns the session (`dispose()` it).
 * @example
 * ```ts
 * const session = createTranscriptSession({ slices: [MyToolStats] });
 * session.dispatch(ToolCalled({ toolUseId: 't1', name: 'Bash', input: {}, messageId: 'm1', timestamp: null }));
 * session.slice(ToolCalls).latest()?.status;                   // 'pending'
 * session.machine(AgentPhases).matches('executing');           // true
 * ```
 */
export function createTranscriptSession(options: TranscriptSessionOptions = {}): TranscriptSession {
  const session = createSession<TranscriptDeps>({
    validation: 'always',
    scheduler: new TranscriptClock(),
    dependencies: { channel: new NotificationChannel() },
    ...options,
    slices: [...transcriptSlices, ...(options.slices ?? [])],
    events: [...transcriptEvents, ...notificationEvents, ...(options.events ?? [])],
  });
  session.install(AgentPhases);
  session.handle(Notify, deliverNotification);
  return session;
}

/** A windowed log: its window, what it holds now, and what it evicted during the replay. */
export interface WindowReport {
  readonly slice: string;
  readonly window: string;
  readonly size: number;
  readonly evicted: number;
}

/** The notifications of the replay's failed tool calls. */
export interface NotificationReport {
  /** `transcript/toolFailed` events dispatched: one notification each. */
  readonly failedCalls: number;
  readonly delivered: readonly NotificationRecord[];
  /** Compensated: every attempt was rejected. */
  readonly abandoned: readonly NotificationRecord[];
  /** Not settled when the report was read (0 with the `TranscriptClock`, which runs every retry before). */
  readonly inFlight: number;
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
  /** Per-tool statistics (computed family `ToolStatsOf`), by calls descending. */
  readonly tools: readonly ToolStatistics[];
  /** Computed `ToolCallTotals`. */
  readonly toolCalls: ToolCallTotals;
  /** Tool calls of subagents relayed in `agent_progress` lines (the `subagentTools` slice), by tool in first-seen order. */
  readonly subagentCalls: SubagentToolsItem;
  /** Computed `TaskSummary` of the latest todo list. */
  readonly task: TaskSummary;
  /** Computed `TokenSummary`. */
  readonly tokens: TokenSummary;
  /** The windowed logs (`messages`, `toolCalls`). */
  readonly windows: readonly WindowReport[];
  readonly notifications: NotificationReport;
  /** Time per phase of the `agentPhase` statechart, in transcript time. */
  readonly phases: PhaseDurations;
  readonly timing: ReplayTiming;
  /** {@link ReplayOptions.earlierTranscripts}: transcripts the session held before this one (their messages and tool calls are in the windows' `size`). */
  readonly earlierTranscripts: number;
}

/** Options of {@link replayTranscript}. */
export interface ReplayOptions {
  /** Name of the transcript in the report (a file name). */
  readonly source: string;
  /** A session to replay into (created with {@link createTranscriptSession}); the caller disposes it. Default: a new one, disposed after the report is read. */
  readonly session?: TranscriptSession;
  /**
   * How many of the transcript's events the session already holds (a stored session reopened):
   * the first `skipEvents` parsed events are not dispatched again. Default 0.
   */
  readonly skipEvents?: number;
  /** Called with (events dispatched so far, events to dispatch) every 1,024 events and at the end: drives a progress bar. */
  readonly onProgress?: (done: number, total: number) => void;
  /**
   * Transcripts replayed into `session` before this one (one session for several, as
   * `rxslice replay --record` does). When above 0, `transcript/transcriptStarted` is dispatched
   * first: the plan, token, tool-statistics and phase state and the transcript's time start
   * afresh, so every figure of the report is this transcript's own and the time between the two
   * transcripts counts in no phase; the logs go on (the windows' `size` is then the session's).
   * Default 0.
   */
  readonly earlierTranscripts?: number;
}

const byCountDesc = (counts: Map<string, number>): ReadonlyMap<string, number> =>
  new Map([...counts].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)));

const bump = (counts: Map<string, number>, key: string, by = 1): void => {
  counts.set(key, (counts.get(key) ?? 0) + by);
};

/**
 * Parses the transcript's lines into events, dispatches them one by one into a session and
 * reads the report from its computed slices, its logs and its statechart.
 *
 * @remarks Synchronous. Never throws on bad input: unparseable lines are counted by reason
 * (see `parseLine`), and an event the session rejects (`InvalidEventError`, `ReducerError`) is
 * counted as `rejected by the session (<code>): <event type>` and the replay goes on.
 * When the session's scheduler is a {@link TranscriptClock}, the clock is moved to each event's
 * timestamp before it is dispatched (running the effect retries due by then), and after the
 * last event every retry still waiting is run ({@link TranscriptClock.finish}), so every
 * notification is settled when the report is read.
 * Throughput: `performance.now()` is read around the dispatch loop only (retries included), so
 * `eventsPerSecond` covers validation, reducers, commits, effects and the statechart, and
 * excludes parsing (reported as `parseMs`).
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
  const clock = session.scheduler instanceof TranscriptClock ? session.scheduler : undefined;
  const skipped = new Map(parsed.skipped);
  const evicted = new Map<string, number>();
  const eviction = session.evicted$.subscribe((e) => bump(evicted, e.slice, e.items.length));
  const notificationsBefore = session.slice(Notifications).size;
  const dispatched: Event[] = [];
  const start = performance.now();
  const toDispatch = parsed.events.slice(options.skipEvents ?? 0);
  const onProgress = options.onProgress;
  let n = 0;
  const earlierTranscripts = options.earlierTranscripts ?? 0;
  if (earlierTranscripts > 0) session.dispatch(TranscriptStarted({ source: options.source, previous: earlierTranscripts }));
  for (const event of toDispatch) {
    if (onProgress !== undefined && (++n & 1023) === 0) onProgress(n, toDispatch.length);
    const at = clock === undefined ? undefined : timestampOf(event);
    if (at !== undefined) clock?.advanceTo(at);
    try {
      session.dispatch(event);
      dispatched.push(event);
    } catch (error) {
      const code = isRxSliceError(error) ? error.code : 'UNKNOWN';
      bump(skipped, `rejected by the session (${code}): ${event.type}`);
    }
  }
  clock?.finish();
  onProgress?.(toDispatch.length, toDispatch.length);
  const replayMs = performance.now() - start;
  eviction.unsubscribe();

  const eventsByType = new Map<string, number>();
  for (const event of dispatched) bump(eventsByType, event.type);
  const report: ReplayReport = {
    source: options.source,
    lines: parsed.lines,
    skippedLines: parsed.skippedLines,
    events: dispatched.length,
    eventsByType: byCountDesc(eventsByType),
    skipped: byCountDesc(skipped),
    tools: readTools(session),
    toolCalls: session.computed(ToolCallTotals).latest(),
    subagentCalls: session.slice(SubagentTools).latest() ?? { tools: [], calls: 0, errors: 0 },
    task: session.computed(TaskSummary).latest(),
    tokens: session.computed(TokenSummary).latest(),
    windows: [windowOf(session, Messages, evicted), windowOf(session, ToolCalls, evicted)],
    notifications: readNotifications(session, notificationsBefore, eventsByType.get('transcript/toolFailed') ?? 0),
    phases: phaseDurations(session.machine(AgentPhases).current, session.slice(TranscriptTime).latest()),
    timing: { parseMs, replayMs, eventsPerSecond: replayMs > 0 ? dispatched.length / (replayMs / 1000) : 0 },
    earlierTranscripts,
  };
  if (options.session === undefined) session.dispose();
  return report;
}

function windowOf<TItem>(session: TranscriptSession, def: SliceDef<string, TItem>, evicted: ReadonlyMap<string, number>): WindowReport {
  return { slice: def.name, window: def.window?.description ?? 'none', size: session.slice(def).size, evicted: evicted.get(def.name) ?? 0 };
}

/** Every tool's statistics, read from the computed family, in the order of the computed `ToolNames`. */
function readTools(session: TranscriptSession): ToolStatistics[] {
  const statsOf = session.computed(ToolStatsOf);
  return session.computed(ToolNames).latest().map((name) => statsOf(name).latest());
}

function readNotifications(session: TranscriptSession, before: number, failedCalls: number): NotificationReport {
  const settled = session.slice(Notifications).all().slice(before);
  const delivered = settled.filter((n) => n.status === 'delivered');
  const abandoned = settled.filter((n) => n.status === 'abandoned');
  return { failedCalls, delivered, abandoned, inFlight: failedCalls - settled.length };
}
