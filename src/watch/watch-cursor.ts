/**
 * Where a watched transcript file stands, kept in the session itself so that it is committed in
 * the same journal record as the events it accounts for.
 *
 * One `watch/lineRead` event closes a run of lines (its offset moves past the last line's
 * newline, its `lines` counts them); every transcript event of those lines bumps `eventsInLine`
 * in the same record that carries the event; an event the session refused is recorded by a
 * `watch/eventSkipped`. A process killed before the run's `watch/lineRead` therefore reopens at
 * the run's first line with the number of its events already committed, and dispatches only the
 * rest: no event applied twice, none skipped.
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
  /** Events of the lines from `offset` on already committed (or refused), to pass over when those lines are read again. */
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
 * `\n`) and counts `lines` of them (1 when absent: the journals of earlier versions closed each line).
 */
export const LineRead = /* @__PURE__ */ defineEvent(
  'watch/lineRead',
  z.object({ offset: z.number().int().nonnegative(), ino: z.number(), clockMs: z.number().nullable(), lines: z.number().int().positive().optional() }),
);

/** The session refused one event of the current line (`reason`: the error code); it counts as handled. */
export const EventSkipped = /* @__PURE__ */ defineEvent('watch/eventSkipped', z.object({ type: z.string(), reason: z.string() }));

/** The watch events, for `createSession({ events })`. */
export const watchEvents = [LineRead, EventSkipped] as const;

const INITIAL: WatchCursorItem = { offset: 0, ino: null, lines: 0, eventsInLine: 0, events: 0, refused: 0, clockMs: null };

const current = (view: SliceView<WatchCursorItem>): WatchCursorItem => view.latest() ?? INITIAL;

/**
 * The `watchCursor` slice: one {@link WatchCursorItem}, moved by every transcript event, by
 * {@link LineRead} and by {@link EventSkipped}.
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
    ...transcriptEvents.map((creator) =>
      on(creator, (view) => {
        const c = current(view as SliceView<WatchCursorItem>);
        return replace([{ ...c, eventsInLine: c.eventsInLine + 1, events: c.events + 1 }]);
      }),
    ),
    on(EventSkipped, (view) => {
      const c = current(view);
      return replace([{ ...c, eventsInLine: c.eventsInLine + 1, refused: c.refused + 1 }]);
    }),
    on(LineRead, (view, { payload }) => {
      const c = current(view);
      return replace([{ ...c, offset: payload.offset, ino: payload.ino, lines: c.lines + (payload.lines ?? 1), eventsInLine: 0, clockMs: payload.clockMs }]);
    }),
  ],
});
