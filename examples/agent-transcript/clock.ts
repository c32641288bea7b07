/**
 * The transcript clock: a virtual-time scheduler that the replay moves forward to each
 * line's timestamp, so that the session's time (envelope `at`, retry delays of effects) is
 * the transcript's own time, and a replay is synchronous and deterministic.
 */
import { VirtualTimeScheduler } from 'rxjs';
import type { Event } from '../../src/index';

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
  const ms = Date.parse(text);
  return Number.isNaN(ms) ? undefined : ms;
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
