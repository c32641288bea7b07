/**
 * The agent's phase as a statechart, installed in the transcript session
 * (`session.install(AgentPhases)`), with the time spent in each phase kept in its context.
 *
 * ```
 * transcript
 *   idle                 before the first prompt
 *   working              the agent's turn, from a prompt to the end of the turn
 *     thinking           waiting for the model: after a prompt, a tool result or a thinking block
 *     responding         the model wrote text (in transcripts without end-of-turn lines,
 *                        this also holds the wait for the next prompt)
 *     planning           a TodoWrite call is in flight
 *     executing          other tool calls are in flight (a Task call: its subagent's whole run)
 *   waitingForUser       the turn ended (system `stop_hook_summary` / `turn_duration`, an interruption,
 *                        a local command), until the next prompt
 * ```
 *
 * Transitions (document order decides; deeper states first, as SCXML selects them):
 * - a prompt (`userMessageAdded` that is not meta, a compaction summary or a sidechain) → thinking, from anywhere;
 *   an interruption (`[Request interrupted by user…`) or a local command (`<command-name>…`,
 *   `<local-command-stdout>…`) → waitingForUser (the user has the keyboard; all calls in flight are dropped);
 * - `toolCalled` → planning (TodoWrite) or executing; while calls are in flight, more calls
 *   stay where they are (a non-TodoWrite call moves planning to executing), and the result of
 *   the last call in flight → thinking;
 * - an assistant line with a text block → responding; with a thinking block → thinking
 *   (lines of a response whose calls are in flight, and `tool_use` lines, change nothing: the
 *   `toolCalled` that follows decides);
 * - `systemMessageAdded` `stop_hook_summary` or `turn_duration` while working → waitingForUser;
 * - `transcriptStarted` (another transcript in the same session) → idle, every total back to 0;
 * - any other event enables nothing (and costs the machine nothing).
 *
 * Time: the clock is the `transcriptTime` slice ({@link TranscriptTime}, clock.ts), the running
 * maximum of the transcript events' timestamps, because transcripts sometimes step back. It is
 * kept out of this machine's context, so an event that only moves time leaves the machine's
 * slice alone. A phase's time runs from the clock when it was entered to the clock when it is
 * left; the exit action reads the clock as committed before the event and the event's own
 * `timestamp` (actions do not see the envelope's time). So the phases' times add up exactly to
 * `lastMs - firstMs` of `transcriptTime`: the latest timestamp minus the first one, over every
 * timestamped event (see {@link phaseDurations}, which closes the current phase at `lastMs`).
 */
import { assign, defineMachine, type ActionArgs, type MachineSnapshot } from '../index';
import { timestampOf, TranscriptTime, type TranscriptTimeItem } from './clock';
import type { Event } from '../index';

/** The atomic phases, in chart order. */
export const PHASES = ['idle', 'thinking', 'responding', 'planning', 'executing', 'waitingForUser'] as const;
/** One of the atomic {@link PHASES} of the transcript's phase chart. */
export type Phase = (typeof PHASES)[number];

/**
 * The machine's context: the phase totals and the tool calls in flight. Times in ms since the
 * epoch; the clock itself is the `transcriptTime` slice, not part of the context.
 */
export interface PhaseContext {
  /** When the current phase was entered (the clock then); `null` while it is the first phase (entered at the first timestamp). */
  readonly sinceMs: number | null;
  /** Time spent in each phase before the current visit of the current phase. */
  readonly msIn: Readonly<Record<Phase, number>>;
  /** Prompts seen (turns started). */
  readonly turns: number;
  /** Tool calls made and not answered yet. */
  readonly inFlight: number;
  /**
   * True when this is a subagent's own transcript (`<session>_subagents_agent-<id>.jsonl`): its
   * first prompt was a sidechain line, so its sidechain lines are its own thread, not a Task
   * call's subagent running inside a main transcript.
   */
  readonly subagent: boolean;
}

type Args = ActionArgs<PhaseContext>;

const zeroes = (): Record<Phase, number> => ({ idle: 0, thinking: 0, responding: 0, planning: 0, executing: 0, waitingForUser: 0 });

const payloadOf = (args: Args): Record<string, unknown> => (args.event.payload ?? {}) as Record<string, unknown>;

/**
 * The clock after the event: the later of `transcriptTime` as committed before it and the
 * event's own timestamp (the slice's reducer moves it the same way when the event commits).
 * `undefined` before any timestamp.
 */
function clockAfter({ event, slices }: Args): { readonly firstMs: number; readonly nowMs: number } | undefined {
  const time: TranscriptTimeItem | undefined = slices.get(TranscriptTime).latest();
  const t = timestampOf(event as Event);
  if (t === undefined) return time === undefined ? undefined : { firstMs: time.firstMs, nowMs: time.lastMs };
  return time === undefined ? { firstMs: t, nowMs: t } : { firstMs: time.firstMs, nowMs: Math.max(time.lastMs, t) };
}

/**
 * `msIn` with `ms` added to `phase`: a literal with the keys in {@link PHASES} order (what a
 * spread of `msIn` with a computed key gives, without the spread: V8 makes that object slowly,
 * and every later read of it, the JSON check and the freeze included, is slower too).
 */
function addTime(msIn: Readonly<Record<Phase, number>>, phase: Phase, ms: number): Record<Phase, number> {
  return {
    idle: phase === 'idle' ? msIn.idle + ms : msIn.idle,
    thinking: phase === 'thinking' ? msIn.thinking + ms : msIn.thinking,
    responding: phase === 'responding' ? msIn.responding + ms : msIn.responding,
    planning: phase === 'planning' ? msIn.planning + ms : msIn.planning,
    executing: phase === 'executing' ? msIn.executing + ms : msIn.executing,
    waitingForUser: phase === 'waitingForUser' ? msIn.waitingForUser + ms : msIn.waitingForUser,
  };
}

/** Exit action of a phase: adds the time since it was entered and restarts the phase clock. */
const leave = (phase: Phase) =>
  assign<PhaseContext>((args) => {
    const clock = clockAfter(args);
    if (clock === undefined) return {};
    const since = args.context.sinceMs ?? clock.firstMs;
    return { msIn: addTime(args.context.msIn, phase, clock.nowMs - since), sinceMs: clock.nowMs };
  });

function hasTimestamp(args: Args): boolean {
  return timestampOf(args.event as Event) !== undefined;
}
/**
 * A line of the transcript's own thread: not a sidechain line, unless the transcript is a
 * subagent's own (every line is a sidechain one there; its first prompt, met while idle, says so).
 */
function ownThread({ event, context, inState }: Args): boolean {
  return (event.payload as { isSidechain?: unknown } | undefined)?.isSidechain !== true || context.subagent || inState('idle');
}
/** User text that Claude Code writes itself: not meta, a compaction summary or a sidechain (subagent) line. */
function fromTheUser(args: Args): boolean {
  const p = payloadOf(args);
  return p['isMeta'] !== true && p['isCompactSummary'] !== true && ownThread(args);
}
const LOCAL_COMMAND = /^\s*<(command-name|local-command-stdout|local-command-caveat)>/;
const INTERRUPTED = /^\s*\[Request interrupted by user/;
/** User text that hands control back to the user: an interruption, or a local command (`/model`, `/mcp`, ...) and its output. */
function handsBackToUser(args: Args): boolean {
  const text = payloadOf(args)['text'];
  return fromTheUser(args) && typeof text === 'string' && (INTERRUPTED.test(text) || LOCAL_COMMAND.test(text));
}
/** A prompt: user text for the model (not meta, compaction summary, sidechain, interruption or local command). */
function isPrompt(args: Args): boolean {
  return fromTheUser(args) && !handsBackToUser(args);
}
function isTodoWrite(args: Args): boolean {
  return payloadOf(args)['name'] === 'TodoWrite';
}
function isOtherTool(args: Args): boolean {
  return !isTodoWrite(args);
}
const blocks = (args: Args): readonly string[] => {
  const p = payloadOf(args);
  return ownThread(args) ? ((p['blockTypes'] as readonly string[] | undefined) ?? []) : [];
};
function wroteText(args: Args): boolean {
  return blocks(args).includes('text');
}
function wroteThinking(args: Args): boolean {
  return blocks(args).includes('thinking');
}
function endsTurn(args: Args): boolean {
  const subtype = payloadOf(args)['subtype'];
  return subtype === 'stop_hook_summary' || subtype === 'turn_duration';
}
function lastCallAnswered({ context }: Args): boolean {
  return context.inFlight <= 1;
}

/** Another transcript starts in the same session: nothing of the one before counts. */
const startAfresh = assign<PhaseContext>(() => ({ sinceMs: null, msIn: zeroes(), turns: 0, inFlight: 0, subagent: false }));
const startTurn = assign<PhaseContext>(({ context, event }) => ({
  turns: context.turns + 1,
  inFlight: 0,
  subagent: context.subagent || (event.payload as { isSidechain?: unknown } | undefined)?.isSidechain === true,
}));
const handBack = assign<PhaseContext>(() => ({ inFlight: 0 }));
const callMade = assign<PhaseContext>(({ context }) => ({ inFlight: context.inFlight + 1 }));
const callAnswered = assign<PhaseContext>(({ context }) => ({ inFlight: Math.max(0, context.inFlight - 1) }));

const RESULT = 'transcript/toolSucceeded transcript/toolFailed';

/** While calls are in flight: more calls, lines of the same response (they change nothing), and results. */
const inFlightTransitions = {
  'transcript/assistantMessageAdded': { guard: hasTimestamp },
  [RESULT]: [
    { target: 'thinking', guard: lastCallAnswered, actions: callAnswered },
    { actions: callAnswered },
  ],
} as const;

/** The agent's phases (see the module comment for the chart and how time is counted). */
export const AgentPhases = defineMachine('agentPhase', {
  context: {
    sinceMs: null,
    msIn: zeroes(),
    turns: 0,
    inFlight: 0,
    subagent: false,
  } as PhaseContext,
  // Events the chart has no transition for in the current phase change nothing.
  invalidTransitions: 'ignore',
  initial: 'transcript',
  states: {
    transcript: {
      initial: 'idle',
      on: {
        'transcript/userMessageAdded': [
          { target: 'thinking', guard: isPrompt, actions: startTurn },
          { target: 'waitingForUser', guard: handsBackToUser, actions: handBack },
        ],
        'transcript/toolCalled': [
          { target: 'planning', guard: isTodoWrite, actions: callMade },
          { target: 'executing', actions: callMade },
        ],
        'transcript/assistantMessageAdded': [
          { target: 'responding', guard: wroteText },
          { target: 'thinking', guard: wroteThinking },
        ],
        [RESULT]: { actions: callAnswered },
        'transcript/transcriptStarted': { target: 'idle', actions: startAfresh },
      },
      states: {
        idle: { exit: leave('idle') },
        working: {
          initial: 'thinking',
          on: { 'transcript/systemMessageAdded': { target: 'waitingForUser', guard: endsTurn } },
          states: {
            thinking: { exit: leave('thinking') },
            responding: { exit: leave('responding') },
            planning: {
              exit: leave('planning'),
              on: {
                'transcript/toolCalled': [{ target: 'executing', guard: isOtherTool, actions: callMade }, { actions: callMade }],
                ...inFlightTransitions,
              },
            },
            executing: {
              exit: leave('executing'),
              on: { 'transcript/toolCalled': { actions: callMade }, ...inFlightTransitions },
            },
          },
        },
        waitingForUser: { exit: leave('waitingForUser') },
      },
    },
  },
});

/** Time per phase, the current phase, and the span they add up to. */
export interface PhaseDurations {
  /** ms per phase, the current visit of the current phase included (closed at `lastMs`). */
  readonly msIn: Readonly<Record<Phase, number>>;
  readonly current: Phase;
  /** Latest minus first timestamp seen (ms); equals the sum of `msIn`. 0 before any timestamp. */
  readonly spanMs: number;
  readonly firstMs: number | null;
  readonly lastMs: number | null;
  readonly turns: number;
  /** A subagent's own transcript (see {@link PhaseContext.subagent}): ending in `responding` means it ended with its answer. */
  readonly subagent: boolean;
}

/**
 * Reads the time per phase from a snapshot of {@link AgentPhases} and the session's
 * {@link TranscriptTime}: the context's totals plus the current phase's visit so far (up to the
 * clock's `lastMs`).
 *
 * @param time - `session.slice(TranscriptTime).latest()`: `undefined` before any timestamp
 * (then every phase has 0 ms and `firstMs`/`lastMs` are `null`).
 * @example
 * ```ts
 * const d = phaseDurations(session.machine(AgentPhases).current, session.slice(TranscriptTime).latest());
 * Object.values(d.msIn).reduce((a, b) => a + b, 0) === d.spanMs; // true
 * ```
 */
export function phaseDurations(snapshot: MachineSnapshot<PhaseContext, string>, time: TranscriptTimeItem | undefined): PhaseDurations {
  const c = snapshot.context;
  const current = (snapshot.basicConfiguration.find((id) => (PHASES as readonly string[]).includes(id)) ?? 'idle') as Phase;
  const open = time === undefined ? 0 : time.lastMs - (c.sinceMs ?? time.firstMs);
  return {
    msIn: { ...c.msIn, [current]: c.msIn[current] + open },
    current,
    spanMs: time === undefined ? 0 : time.lastMs - time.firstMs,
    firstMs: time?.firstMs ?? null,
    lastMs: time?.lastMs ?? null,
    turns: c.turns,
    subagent: c.subagent,
  };
}
