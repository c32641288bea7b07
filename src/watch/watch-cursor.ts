/**
 * Where a watched transcript file stands, kept in the session itself so that it is committed in
 * the same journal record as the events it accounts for.
 *
 * One `watch/lineRead` event closes a run of lines (its offset moves past the last line's
 * newline, its `lines` counts them, its `events` adds the run's events to the total). The
 * transcript events of a run change nothing here: they are counted by the session's gapless
 * `seq`. Every other event the watch session commits (`watch/lineRead`, `watch/eventSkipped`,
 * `watch/budgetExceeded`, the notification events) moves the cursor and records its own `seq`, so
 * the events committed after the cursor's `seq` are exactly transcript events of the lines from
 * `offset` on; a refused event is recorded by a `watch/eventSkipped`, which bumps `eventsInLine`.
 * A process killed before the run's `watch/lineRead` therefore reopens at the run's first line
 * with the number of its events already handled (`eventsInLine` + {@link committedInRun}: the
 * session's `lastSeq` minus the cursor's `seq`, plus `committedInLine`), and dispatches only the
 * rest: no event applied twice, none skipped.
 */
import { z } from 'zod';
import { defineEvent, defineSlice, replace, type EventCreator, type SliceView } from '../index';
import { notificationEvents } from '../transcripts/notifications';
import { BudgetExceeded } from './budgets';
import { MachineTimerFired } from '../machines/session-machine';
import { effectLifecycleEvents } from '../effects/lifecycle-events';

/** The cursor of one watched file (one item, `policy: 'state'`). */
export const WatchCursorItem = z.object({
  /** Bytes of the file fully applied: the offset just past the last line's `\n`. */
  offset: z.number().int().nonnegative(),
  /** Inode of the file when its last line was read (`null` before the first line): a different one means the file was replaced. */
  ino: z.number().nullable(),
  /** Lines applied (each ended by `\n`). */
  lines: z.number().int().nonnegative(),
  /**
   * Events of the lines from `offset` on already refused (and, in the journals of some earlier
   * versions, committed), to pass over when those lines are read again; the committed ones are
   * counted by `committedInLine` and the session's `seq` (see {@link committedInRun}).
   */
  eventsInLine: z.number().int().nonnegative(),
  /**
   * Transcript events of the lines from `offset` on committed before the event at `seq` (counted
   * when a refused event or another watch event moved the cursor inside a run). Absent in the
   * journals of earlier versions (read as 0).
   */
  committedInLine: z.number().int().nonnegative().optional(),
  /**
   * The `seq` of the event that last moved the cursor (0 before any): every event committed after
   * it is a transcript event of the lines from `offset` on. Absent in the journals of earlier
   * versions, whose transcript events counted themselves in {@link WatchRun} (see {@link CursorUpgraded}).
   */
  seq: z.number().int().nonnegative().optional(),
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

/**
 * A cursor read from the journal of an earlier version (without `seq`) starts counting by `seq`:
 * the transcript events its {@link WatchRun} counted move to `committedInLine`, and the counter
 * goes back to 0. Dispatched once, when such a store is opened, before any line is applied.
 */
export const CursorUpgraded = /* @__PURE__ */ defineEvent('watch/cursorUpgraded', z.object({}));

/** The watch events, for `createSession({ events })`. */
export const watchEvents = [LineRead, EventSkipped, CursorUpgraded] as const;

const INITIAL: WatchCursorItem = { offset: 0, ino: null, lines: 0, eventsInLine: 0, committedInLine: 0, seq: 0, events: 0, refused: 0, clockMs: null };

const current = (view: SliceView<WatchCursorItem>): WatchCursorItem => view.latest() ?? INITIAL;

/**
 * Transcript events of the lines from `offset` on committed as of the event at `seq`: the ones
 * counted in the cursor plus those committed since it last moved (none before `seq` is known).
 */
const committedAt = (c: WatchCursorItem, seq: number): number => (c.committedInLine ?? 0) + (c.seq === undefined ? 0 : seq - 1 - c.seq);

/**
 * Transcript events of the lines from `cursor.offset` on that a session whose last committed
 * `seq` is `lastSeq` has committed: those counted in the cursor plus every event committed after
 * the cursor's `seq` (all of them transcript events: every other event moves the cursor). Used
 * by a restarted watch to pass them over; 0 after each `watch/lineRead`.
 * @throws TypeError when the cursor has no `seq` (an earlier version's, before {@link CursorUpgraded}).
 * @example
 * ```ts
 * committedInRun(session.slice(WatchCursor).latest()!, session.lastSeq); // 12 after a kill 12 events into a run
 * ```
 */
export function committedInRun(cursor: WatchCursorItem, lastSeq: number): number {
  if (cursor.seq === undefined) throw new TypeError('committedInRun: the cursor has no seq (dispatch watch/cursorUpgraded first)');
  return committedAt(cursor, lastSeq + 1);
}

/**
 * The events of a watch session, besides the transcript events, that move the cursor only to
 * record their `seq`: the alerts, the notification events, and the library events a session can
 * commit on its own (a statechart's timer, an effect's lifecycle: none of them happens in a watch
 * session today, whose statechart has no timer and whose effect has no handler, but one that did
 * would otherwise be counted as a transcript event).
 */
const OTHER_EVENTS: readonly EventCreator<string, any>[] = [
  BudgetExceeded,
  ...notificationEvents,
  MachineTimerFired,
  ...effectLifecycleEvents,
];

/**
 * The `watchRun` slice of earlier versions: one number, the transcript events committed since the
 * last {@link LineRead} (each one added 1 in its own journal record). Kept so that their journals
 * open; {@link CursorUpgraded} moves its count into the cursor and sets it back to 0, and nothing
 * else changes it now.
 * @example
 * ```ts
 * session.slice(WatchRun).latest(); // 0 (12 in a store of an earlier version killed 12 events into a run)
 * ```
 */
export const WatchRun = /* @__PURE__ */ defineSlice('watchRun', {
  policy: 'state',
  schema: z.number().int().nonnegative(),
  initial: [0],
  reducers: ({ onLatest }) => [onLatest(CursorUpgraded, () => 0)],
});

/**
 * The `watchCursor` slice: one {@link WatchCursorItem}, moved by {@link LineRead} (once per run of
 * lines), by {@link EventSkipped} and by every other event of the watch session that is not a
 * transcript event (each records its `seq`); the transcript events of a run change nothing here
 * (see {@link committedInRun}).
 * @example
 * ```ts
 * session.slice(WatchCursor).latest(); // { offset: 1024, lines: 3, eventsInLine: 0, committedInLine: 0, seq: 9, events: 5, ... }
 * ```
 */
export const WatchCursor = /* @__PURE__ */ defineSlice('watchCursor', {
  policy: 'state',
  schema: WatchCursorItem,
  initial: [INITIAL],
  reducers: ({ on }) => [
    on(EventSkipped, (view, _event, ctx) => {
      const c = current(view);
      return replace([{ ...c, eventsInLine: c.eventsInLine + 1, committedInLine: committedAt(c, ctx.seq), seq: ctx.seq, refused: c.refused + 1 }]);
    }),
    on(LineRead, (view, { payload }, ctx) => {
      const c = current(view);
      return replace([
        {
          ...c,
          offset: payload.offset,
          ino: payload.ino,
          lines: c.lines + (payload.lines ?? 1),
          eventsInLine: 0,
          committedInLine: 0,
          seq: ctx.seq,
          events: c.events + (payload.events ?? 0),
          clockMs: payload.clockMs,
        },
      ]);
    }),
    on(CursorUpgraded, (view, _event, ctx) => {
      const c = current(view);
      return replace([{ ...c, committedInLine: committedAt(c, ctx.seq) + (ctx.session.read<number>(WatchRun)[0] ?? 0), seq: ctx.seq }]);
    }),
    ...OTHER_EVENTS.map((creator) =>
      on(creator, (view, _event, ctx) => {
        const c = current(view);
        return replace([{ ...c, committedInLine: committedAt(c, ctx.seq), seq: ctx.seq }]);
      }),
    ),
  ],
});
