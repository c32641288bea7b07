/** The figures the watch shows for one session: one row of the live view, one line or JSON object of the plain output. */
import { TokenSummary, ToolCallTotals } from '../transcripts/computed';
import { AgentPhases } from '../transcripts/phases';
import { committedInRun } from './watch-cursor';
import type { WatchedTranscript } from './watched-transcript';

/** One session's status. */
export interface SessionStatus {
  readonly label: string;
  readonly file: string;
  /** The parent session's label, for a subagent transcript. */
  readonly parent: string | null;
  /** The active state(s) of the `agentPhase` statechart, joined by `,`. */
  readonly phase: string;
  /** Tool calls so far, failed ones, and those without a result yet. */
  readonly toolCalls: number;
  readonly errors: number;
  readonly pending: number;
  /** Tokens counted (input + output + cache creation + cache read). */
  readonly tokens: number;
  /** Lines and transcript events applied, and bytes of the file committed. */
  readonly lines: number;
  readonly events: number;
  readonly offset: number;
  /** Wall-clock time of the last applied line (ms since the epoch), `null` before one in this process. */
  readonly lastActivityMs: number | null;
  /** Closed: the file disappeared. */
  readonly closed: boolean;
}

/**
 * Reads the status of a watched transcript from its session (computed slices, statechart, cursor).
 * Synchronous; O(number of tools).
 * @example
 * ```ts
 * sessionStatus(watched); // { label: '4d56', phase: 'executing', toolCalls: 12, errors: 1, tokens: 48_210, ... }
 * ```
 */
export function sessionStatus(watched: WatchedTranscript): SessionStatus {
  const last = lastStatus.get(watched);
  if (watched.closed && last !== undefined) return { ...last, phase: 'closed', closed: true };
  const status = readStatus(watched);
  lastStatus.set(watched, status);
  return status;
}

/** The last status read of each transcript: a closed one (its session disposed) shows it. */
const lastStatus = new WeakMap<WatchedTranscript, SessionStatus>();

function readStatus(watched: WatchedTranscript): SessionStatus {
  const session = watched.current;
  const cursor = watched.cursor;
  const calls = session.computed(ToolCallTotals).latest();
  return {
    label: watched.label,
    file: watched.file,
    parent: watched.parent ?? null,
    phase: watched.closed ? 'closed' : session.machine(AgentPhases).current.basicConfiguration.join(','),
    toolCalls: calls.total,
    errors: calls.errors,
    pending: calls.pending,
    tokens: session.computed(TokenSummary).latest().total,
    lines: cursor.lines,
    // Those of the run not closed yet (a watch killed in the middle of one) are committed too.
    events: cursor.events + (watched.closed ? 0 : committedInRun(cursor, session.lastSeq)),
    offset: cursor.offset,
    lastActivityMs: watched.lastActivityMs,
    closed: watched.closed,
  };
}
