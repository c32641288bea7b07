/**
 * Where a watched transcript file stands, kept in the session itself so that it is committed in
 * the same journal record as the events it accounts for.
 *
 * One `watch/lineRead` event closes a run of lines (its offset moves past the last line's
 * newline, its `lines` counts them, its `events` adds the run's events to the total); every
 * transcript event of those lines bumps the {@link WatchRun} counter in the same record that
 * carries the event (a bare number: the smallest change an event can record); an event the
 * session refused is recorded by a `watch/eventSkipped`, which bumps the cursor's `eventsInLine`.
 * A process killed before the run's `watch/lineRead` therefore reopens at the run's first line
 * with the number of its events already committed (`eventsInLine` + the run counter), and
 * dispatches only the rest: no event applied twice, none skipped.
 */
import { z } from 'zod';
import { defineEvent, defineSlice, replace, type SliceView } from '../index';
import { transcriptEvents } from '../transcripts/events';

/** The cursor of one watched file (one item, `policy: 'state'`). */
export const WatchCursorItem = z.object({
  /** Bytes of the file fully applied: the offset just past the last line's `\n`. */
  offset: z.number().int().nonnegative(),
  /** Inode of the file when its last line was read (`null` before the first line): a different one means the file was replaced. */
  ino: z.number().nullable(),
  /** Lines applied (each ended by `\n`). */
  lines: z.number().int().nonnegative(),
  /**
   * Events of the lines from `offset` on already refused (and, in the journals of earlier
   * versions, committed), to pass over when those lines are read again; the committed ones are
   * counted by {@link WatchRun}.
   */
  eventsInLine: z.number().int().nonnegative(),
  /** Transcript events committed over the file's life (refused ones excluded). */
  events: z.number().int().nonnegative(),
  /** Events the session refused (validation, transitions), counted once each. */
  refused: z.number().int().nonnegative(),
  /** The session clock (transcript time, ms since the epoch) after the last line; `null` before any. */
  clockMs: z.number().nullable(),
});
export type WatchCursorItem = z.infer<typeof WatchCursorItem>;

/**
 * Lines of the watched file were applied: the cursor moves to `offset` (just past the last one's
 * `\n`), counts `lines` of them (1 when absent: the journals of earlier versions closed each line)
 * and adds their `events` (the transcript events committed; absent in the journals of earlier
 * versions, whose events counted themselves in the cursor); the {@link WatchRun} counter restarts.
 */
export const LineRead = /* @__PURE__ */ defineEvent(
  'watch/lineRead',
  z.object({
    offset: z.number().int().nonnegative(),
    ino: z.number(),
    clockMs: z.number().nullable(),
    lines: z.number().int().positive().optional(),
    events: z.number().int().nonnegative().optional(),
  }),
);

/** The session refused one event of the current line (`reason`: the error code); it counts as handled. */
export const EventSkipped = /* @__PURE__ */ defineEvent('watch/eventSkipped', z.object({ type: z.string(), reason: z.string() }));

/** The watch events, for `createSession({ events })`. */
export const watchEvents = [LineRead, EventSkipped] as const;

const INITIAL: WatchCursorItem = { offset: 0, ino: null, lines: 0, eventsInLine: 0, events: 0, refused: 0, clockMs: null };

const current = (view: SliceView<WatchCursorItem>): WatchCursorItem => view.latest() ?? INITIAL;

/**
 * The `watchCursor` slice: one {@link WatchCursorItem}, moved by {@link LineRead} (once per run of
 * lines) and by {@link EventSkipped}; the transcript events of a run count in {@link WatchRun}
 * (journals of earlier versions also have records where each transcript event moved it).
 * @example
 * ```ts
 * session.slice(WatchCursor).latest(); // { offset: 1024, lines: 3, eventsInLine: 0, events: 5, ... }
 * ```
 */
export const WatchCursor = /* @__PURE__ */ defineSlice('watchCursor', {
  policy: 'state',
  schema: WatchCursorItem,
  initial: [INITIAL],
  reducers: ({ on }) => [
    on(EventSkipped, (view) => {
      const c = current(view);
      return replace([{ ...c, eventsInLine: c.eventsInLine + 1, refused: c.refused + 1 }]);
    }),
    on(LineRead, (view, { payload }) => {
      const c = current(view);
      return replace([
        { ...c, offset: payload.offset, ino: payload.ino, lines: c.lines + (payload.lines ?? 1), eventsInLine: 0, events: c.events + (payload.events ?? 0), clockMs: payload.clockMs },
      ]);
    }),
  ],
});

/**
 * The `watchRun` slice: one number, the transcript events committed since the last
 * {@link LineRead} (each one adds 1 in its own journal record; a `watch/lineRead` sets it back
 * to 0). With the cursor's `eventsInLine`, the events a restarted watch passes over.
 * @example
 * ```ts
 * session.slice(WatchRun).latest(); // 0 after each run; 12 after a kill 12 events into a run
 * ```
 */
export const WatchRun = /* @__PURE__ */ defineSlice('watchRun', {
  policy: 'state',
  schema: z.number().int().nonnegative(),
  initial: [0],
  reducers: ({ onLatest }) => [...transcriptEvents.map((creator) => onLatest(creator, (n: number | undefined) => (n ?? 0) + 1)), onLatest(LineRead, () => 0)],
});
