/**
 * The transcript clock: a virtual-time scheduler that the replay moves forward to each
 * line's timestamp, so that the session's time (envelope `at`, retry delays of effects) is
 * the transcript's own time, and a replay is synchronous and deterministic.
 */
import { VirtualTimeScheduler } from 'rxjs';
import { z } from 'zod';
import { defineSlice, none, replace, type Event, type Reducer } from '../index';
import { transcriptEvents, TranscriptStarted } from './events';

/**
 * The time of an event, in ms since the epoch: its payload's ISO-8601 `timestamp`, or
 * `undefined` when it has none (`summary` lines, lines without a timestamp) or it does not parse.
 *
 * @example
 * ```ts
 * timestampOf(ToolFailed({ toolUseId: 't', error: 'x', timestamp: '2025-01-01T00:00:01.500Z' })); // 1735689601500
 * ```
 */
export function timestampOf(event: Event): number | undefined {
  const payload = event.payload as { readonly timestamp?: unknown } | null | undefined;
  const text = payload?.timestamp;
  if (typeof text !== 'string') return undefined;
  const ms = parseIsoUtcMemo(text);
  return Number.isNaN(ms) ? undefined : ms;
}

// The replay reads the same event's timestamp several times in a row (the clock, the
// `transcriptTime` reducer, the phase chart's guard and exit actions): the last text and its
// value are kept. A pure memo (the same text always gives the same number), shared by sessions.
let memoText: string | undefined;
let memoMs = Number.NaN;

/** {@link parseIsoUtc}, remembering the last text parsed. */
function parseIsoUtcMemo(text: string): number {
  if (text === memoText) return memoMs;
  const ms = parseIsoUtc(text);
  memoText = text;
  memoMs = ms;
  return ms;
}

/** The decimal value of `text[from..from+length)`, or -1 when one of them is not a digit. */
function digits(text: string, from: number, length: number): number {
  let value = 0;
  for (let i = from; i < from + length; i++) {
    const d = text.charCodeAt(i) - 48;
    if (d < 0 || d > 9) return -1;
    value = value * 10 + d;
  }
  return value;
}

/**
 * `Date.parse(text)`, with a fast path for the form transcripts use, `YYYY-MM-DDTHH:MM:SS.sssZ`
 * (or without `.sss`): the replay reads a timestamp several times per line (the clock, the
 * phase chart's guard and actions). The fast path only takes fields `Date.parse` reads the same
 * way (years from 1970, days up to 28, no leap second or 24:00); anything else goes to `Date.parse`.
 */
function parseIsoUtc(text: string): number {
  const n = text.length;
  if ((n === 24 || n === 20) && text.charCodeAt(n - 1) === 90 /* Z */ && text[4] === '-' && text[7] === '-' && text[10] === 'T' && text[13] === ':' && text[16] === ':') {
    const year = digits(text, 0, 4);
    const month = digits(text, 5, 2);
    const day = digits(text, 8, 2);
    const hour = digits(text, 11, 2);
    const minute = digits(text, 14, 2);
    const second = digits(text, 17, 2);
    const milli = n === 24 ? (text[19] === '.' ? digits(text, 20, 3) : -1) : 0;
    if (year >= 1970 && month >= 1 && month <= 12 && day >= 1 && day <= 28 && hour >= 0 && hour <= 23 && minute >= 0 && minute <= 59 && second >= 0 && second <= 59 && milli >= 0) {
      return Date.UTC(year, month - 1, day, hour, minute, second, milli);
    }
  }
  return Date.parse(text);
}

/**
 * A `VirtualTimeScheduler` (RxJS) whose clock the replay sets: `now()` starts at 0 and only
 * moves when {@link TranscriptClock.advanceTo} or {@link TranscriptClock.finish} is called.
 * Pass it as the session's `scheduler` (`createTranscriptSession` does): envelopes are then
 * stamped with transcript time, and effect retries wait in transcript time.
 *
 * @remarks Timestamps in real transcripts sometimes go back (a `progress` line written a few
 * ms after the result it precedes; the lines around a compaction, up to ~90 s), so the clock
 * never moves back: it is the running maximum of the timestamps it was given.
 * @example
 * ```ts
 * const clock = new TranscriptClock();
 * clock.schedule(() => console.log('retry'), 1000); // due at 1000
 * clock.advanceTo(500);                             // nothing due
 * clock.advanceTo(2000);                            // Logs: retry   (now() was 1000 while it ran)
 * clock.now();                                      // 2000
 * ```
 */
export class TranscriptClock extends VirtualTimeScheduler {
  /**
   * Runs every action due at or before `ms` (each at its own due time), then sets `now()` to
   * `ms`. A time before `now()` changes nothing (the clock never goes back).
   */
  advanceTo(ms: number): void {
    if (!(ms > this.frame)) return;
    this.maxFrames = ms;
    this.flush();
    this.frame = ms;
  }

  /** Runs every action still scheduled, however late (retries due after the last line); `now()` ends at the last one's time. */
  finish(): void {
    this.maxFrames = Number.POSITIVE_INFINITY;
    this.flush();
  }

  /** Actions still scheduled (effect retries waiting for their delay). */
  get pending(): number {
    return this.actions.length;
  }
}

/** The item of {@link TranscriptTime}: the first timestamp and the running maximum of the timestamps seen (ms since the epoch). */
export const TranscriptTimeItem = z.object({ firstMs: z.number(), lastMs: z.number() });
export type TranscriptTimeItem = z.infer<typeof TranscriptTimeItem>;

/** Moves the running maximum to the event's timestamp; an event without one, or one not later, changes nothing. */
const advanced: Reducer<TranscriptTimeItem> = (view, event) => {
  const t = timestampOf(event);
  if (t === undefined) return none();
  const time = view.latest();
  if (time !== undefined && t <= time.lastMs) return none();
  return replace([{ firstMs: time?.firstMs ?? t, lastMs: t }]);
};

/**
 * The transcript's time as the session has seen it (state, at most one item): the first
 * timestamp of any transcript event and the running maximum of their timestamps (transcripts
 * sometimes step back, see {@link TranscriptClock}). Empty before the first timestamped event,
 * and again after `transcript/transcriptStarted` (another transcript in the same session).
 *
 * @remarks Kept apart from the `agentPhase` statechart's context so that an event that only
 * moves time changes this one small item and not the machine's slice (whose snapshot holds the
 * whole configuration): the statechart reads it (as committed before the event it handles) when
 * a phase is left, and `phaseDurations` (phases.ts) reads it to close the current phase.
 * @example
 * ```ts
 * session.dispatch(UserMessageAdded({ ...prompt, timestamp: '2025-01-01T00:00:01.000Z' }));
 * session.slice(TranscriptTime).latest(); // { firstMs: 1735689601000, lastMs: 1735689601000 }
 * ```
 */
export const TranscriptTime = /* @__PURE__ */ defineSlice('transcriptTime', {
  policy: 'state',
  schema: TranscriptTimeItem,
  // Another transcript in the same session: its time starts afresh (see TranscriptStarted).
  reducers: ({ on }) => transcriptEvents.map((creator) => (creator === TranscriptStarted ? on(creator, () => replace([])) : on(creator, advanced))),
});
