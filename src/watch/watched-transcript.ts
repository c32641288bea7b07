/**
 * One transcript file being followed: its tail, its session, and the exactly-once application
 * of its lines (see {@link WatchCursor}).
 */
import { rmSync } from 'node:fs';
import type { Subscription } from 'rxjs';
import { isRxSliceError } from '../internal/errors';
import { SESSION_INTERNALS } from '../session/internals';
import { TranscriptClock, timestampOf } from '../transcripts/clock';
import { INVALID_JSON, parseLine } from '../transcripts/parse';
import { FileTail, statFile, type TailLine } from './file-tail';
import { createWatchSession, type WatchSession } from './watch-session';
import { committedInRun, CursorUpgraded, EventSkipped, LineRead, WatchCursor, type WatchCursorItem } from './watch-cursor';
import { clip } from '../internal/quote';

const NO_LINES: readonly TailLine[] = [];

/** What one {@link WatchedTranscript.pump} applied. */
export interface PumpResult {
  /** Complete lines applied. */
  readonly lines: number;
  /** Transcript events committed. */
  readonly events: number;
  /** Events the session refused (counted in the cursor's `refused`). */
  readonly refused: number;
  /** Set when the file was truncated or replaced and its session started over. */
  readonly restarted?: 'truncated' | 'replaced';
}

/** A line of a watched file that is not JSON (see `WatchedTranscriptOptions.onInvalidLine`). */
export interface InvalidLine {
  readonly file: string;
  /** Its number in the file, from 1. */
  readonly line: number;
  /** The byte offset of its first byte. */
  readonly offset: number;
  /** The parser's reason (`invalid JSON`) and what `JSON.parse` said (at most a few characters of the line are quoted). */
  readonly reason: string;
}

/** `JSON.parse`'s message for `text`, control characters shown as `?` (V8 quotes a few characters of the text). */
function jsonError(text: string): string {
  try {
    JSON.parse(text);
    return '';
  } catch (e) {
    return (e instanceof Error ? e.message : String(e)).replace(/[\u0000-\u001f\u007f]/g, '?');
  }
}

/** Options of {@link WatchedTranscript}. */
export interface WatchedTranscriptOptions {
  /** The file. */
  readonly file: string;
  /** Its name in reports and store paths (see `transcriptLabel`). */
  readonly label: string;
  /** The label of the parent session of a subagent transcript. */
  readonly parent?: string;
  /** Durable session directory of this transcript. Default: in memory. */
  readonly storeDir?: string;
  /** Told about a session error other than the (expected) missing `transcript/notify` handler. */
  readonly onError?: (error: unknown) => void;
  /**
   * Called with each session this transcript feeds, before any line is applied to it: once at the
   * end of the constructor, and again each time the file starts over (truncated or replaced).
   * Attach what must see every event here (a flight recorder). Not called for a session replaced
   * inside the constructor.
   */
  readonly onSession?: (watched: WatchedTranscript) => void;
  /**
   * Told about each line that is not JSON, before the line is committed (it gives no event): a
   * process killed between the two reports the line again when it continues from the store; a
   * line once committed is not reported again.
   */
  readonly onInvalidLine?: (line: InvalidLine) => void;
}

/**
 * Follows one transcript file into its own session.
 *
 * @remarks Each {@link pump} applies the lines it takes as: the transcript events of each line
 * (parsed by `parseLine`) in one durable batch (`SessionInternals.durableBatch`: its records are
 * written in one go at its end), each dispatched after moving the session's {@link TranscriptClock} to
 * its timestamp, as `replayTranscript` does, without validating its payload a second time (the
 * line was checked by its line schema, and parseLine only makes payloads their events' schemas
 * accept; what the reducers return is still checked); a refused event is recorded as `watch/eventSkipped`;
 * a line that is not JSON gives no event and is reported (`onInvalidLine`); then one
 * `watch/lineRead` moves the committed offset past the last of those lines and counts them and
 * their events. Each event is one commit and is counted: a transcript event by the session's
 * gapless `seq` (every other event moves the cursor and records its `seq`, see `committedInRun`),
 * a refused one in the cursor's `eventsInLine`, so a kill at any point
 * leaves a cursor from which {@link pump} continues without applying an event twice or skipping
 * one (the lines after the committed offset are read again, their committed events passed over). Reopening a durable session whose file is now shorter than its
 * committed offset, or has another inode, starts the session over (its directory is emptied).
 * @throws the storage's errors when `storeDir` cannot be opened.
 * @example
 * ```ts
 * const watched = new WatchedTranscript({ file: 't.jsonl', label: 't', storeDir: 'store/t' });
 * watched.pump(); // { lines: 12, events: 30, refused: 0 } - then again after each change
 * watched.close();
 * ```
 */
export class WatchedTranscript {
  readonly file: string;
  readonly label: string;
  readonly parent: string | undefined;
  private session: WatchSession;
  private tail: FileTail;
  private errors: Subscription;
  /** Set by {@link close}. */
  closed = false;
  /** When the last line was applied (ms since the epoch, wall clock); `null` before any in this process. */
  lastActivityMs: number | null = null;
  /** A restart found when the durable session was opened (the file shrank or was replaced while nobody watched). */
  readonly openedRestart: 'truncated' | 'replaced' | undefined;
  /** Lines read from the file and not applied yet (a {@link pump} given `maxLines` leaves the rest here), from `next` on. */
  private backlog: readonly TailLine[] = NO_LINES;
  private next = 0;
  /** The inode the backlog was read from. */
  private backlogIno = 0;

  constructor(private readonly options: WatchedTranscriptOptions) {
    this.file = options.file;
    this.label = options.label;
    this.parent = options.parent;
    this.session = createWatchSession(options.storeDir === undefined ? {} : { storeDir: options.storeDir });
    let cursor = this.cursor;
    const stat = statFile(this.file);
    let restart: 'truncated' | 'replaced' | undefined;
    if (stat !== undefined && cursor.ino !== null && stat.ino !== cursor.ino) restart = 'replaced';
    else if (stat !== undefined && stat.size < cursor.offset) restart = 'truncated';
    if (restart !== undefined) {
      this.startOver();
      cursor = this.cursor;
    }
    // A store of an earlier version counted its transcript events in `watchRun`: from now on, by `seq`.
    if (cursor.seq === undefined) {
      this.session.dispatch(CursorUpgraded({}));
      cursor = this.cursor;
    }
    this.openedRestart = restart;
    if (cursor.clockMs !== null) this.clock?.advanceTo(cursor.clockMs);
    this.tail = new FileTail(this.file, cursor.offset, cursor.ino);
    this.errors = this.subscribeErrors();
    options.onSession?.(this);
  }

  /** The session (replaced when the file starts over: read it again after a restart). */
  get current(): WatchSession {
    return this.session;
  }

  /** The committed cursor. */
  get cursor(): WatchCursorItem {
    return this.session.slice(WatchCursor).latest() as WatchCursorItem;
  }

  private get clock(): TranscriptClock | undefined {
    return this.session.scheduler instanceof TranscriptClock ? this.session.scheduler : undefined;
  }

  private subscribeErrors(): Subscription {
    return this.session.errors$.subscribe((error) => {
      if (isRxSliceError(error) && error.code === 'MISSING_EFFECT_HANDLER') return;
      this.options.onError?.(error);
    });
  }

  /** Disposes the session and empties its store (or starts a fresh in-memory one). */
  private startOver(): void {
    this.session.dispose();
    if (this.options.storeDir !== undefined) rmSync(this.options.storeDir, { recursive: true, force: true });
    this.session = createWatchSession(this.options.storeDir === undefined ? {} : { storeDir: this.options.storeDir });
  }

  /** Complete lines read from the file and not applied yet (left by a {@link pump} given `maxLines`). */
  get backlogLines(): number {
    return this.backlog.length - this.next;
  }

  /**
   * Applies the complete lines read and not applied yet, or, when there are none, reads what was
   * appended since the last read and applies its complete lines: at most `maxLines` of them (the
   * rest wait for the next call, see {@link backlogLines}), so that a long catch-up can yield
   * between calls.
   * @param maxLines - The most lines to apply in this call (default: every line read).
   * @throws the `fs` error when the file cannot be read (`ENOENT`: it disappeared); nothing is applied then.
   * @throws `RangeError` when `maxLines` is not a positive integer or `Infinity`.
   */
  pump(maxLines = Infinity): PumpResult {
    if (!(maxLines === Infinity || (Number.isInteger(maxLines) && maxLines > 0))) throw new RangeError(`pump(maxLines): expected a positive integer or Infinity, got ${clip(maxLines)}`);
    if (this.closed) return { lines: 0, events: 0, refused: 0 };
    let restarted: 'truncated' | 'replaced' | undefined;
    if (this.next >= this.backlog.length) {
      const read = this.tail.read();
      restarted = read.restarted;
      if (restarted !== undefined) {
        this.errors.unsubscribe();
        this.startOver();
        this.errors = this.subscribeErrors();
        this.options.onSession?.(this);
      }
      this.backlog = read.lines;
      this.next = 0;
      this.backlogIno = read.ino;
    }
    const from = this.next;
    if (from === this.backlog.length) return this.result(0, 0, 0, restarted);
    // One durable batch: the run's records are written in one go at its end, before anything is
    // told (each event is still its own commit, so a kill leaves a prefix of them, cursor included).
    const run = this.session[SESSION_INTERNALS].durableBatch(() => this.applyRun(from, maxLines));
    if (this.next >= this.backlog.length) {
      this.backlog = NO_LINES;
      this.next = 0;
    }
    this.lastActivityMs = Date.now();
    return this.result(run.lines, run.events, run.refused, restarted);
  }

  /** Applies the backlog's lines from `from` on (at most `maxLines`, see {@link pump}) and closes them with one `watch/lineRead`. */
  private applyRun(from: number, maxLines: number): { lines: number; events: number; refused: number } {
    const ino = this.backlogIno;
    let events = 0;
    let refused = 0;
    const start = this.cursor;
    const clock = this.clock;
    // The lines the last run was in the middle of (it was killed before their `watch/lineRead`):
    // their first events are committed (counted by the session's seq since the cursor's, see
    // committedInRun) or refused (the cursor's `eventsInLine`); each is passed over once, in order.
    const resumed = this.backlog[from]!.start === start.offset;
    const committed = resumed ? committedInRun(start, this.session.lastSeq) : 0;
    let skip = resumed ? start.eventsInLine + committed : 0;
    // `maxLines` lines, and more while events to pass over remain: the run must not end inside the
    // lines the last run committed events of, or its watch/lineRead would forget them.
    let k = from;
    for (; k < this.backlog.length && (k - from < maxLines || skip > 0); k++) {
      // Moved before the line is applied: a line that throws (a storage failure) is not applied again.
      this.next = k + 1;
      const line = this.backlog[k]!;
      const { events: parsed, skipped } = parseLine(line.text);
      if (parsed.length === 0 && skipped[0] === INVALID_JSON && this.options.onInvalidLine !== undefined) {
        const detail = jsonError(line.text);
        this.options.onInvalidLine({ file: this.file, line: start.lines + 1 + (k - from), offset: line.start, reason: detail === '' ? INVALID_JSON : `${INVALID_JSON}: ${detail}` });
      }
      for (let i = 0; i < parsed.length; i++) {
        const event = parsed[i]!;
        const at = timestampOf(event);
        // A committed event moves the clock too, as it did in the run that committed it.
        if (at !== undefined) clock?.advanceTo(at);
        if (skip > 0) {
          skip--;
          continue;
        }
        try {
          // Made by parseLine from a line its line schema accepted: the payload is not validated again.
          this.session[SESSION_INTERNALS].dispatchTrusted(event);
          events++;
        } catch (error) {
          const reason = isRxSliceError(error) ? error.code : 'UNKNOWN';
          this.session.dispatch(EventSkipped({ type: event.type, reason }));
          refused++;
        }
      }
    }
    this.session.dispatch(LineRead({ offset: this.backlog[k - 1]!.end, ino, clockMs: clock === undefined ? null : clock.now(), lines: k - from, events: committed + events }));
    return { lines: k - from, events, refused };
  }

  private result(lines: number, events: number, refused: number, restarted: 'truncated' | 'replaced' | undefined): PumpResult {
    return restarted === undefined ? { lines, events, refused } : { lines, events, refused, restarted };
  }

  /**
   * True when lines read are waiting to be applied ({@link backlogLines}), the file holds bytes not read yet, or it was truncated or replaced, since the last
   * {@link pump} (one `stat`); false when it is gone or closed. Catches changes the file-system
   * events missed (chokidar drops events closer than a few ms to the previous one).
   */
  hasNewBytes(): boolean {
    if (this.closed) return false;
    if (this.next < this.backlog.length) return true;
    const stat = statFile(this.file);
    if (stat === undefined) return false;
    return stat.size !== this.tail.position || (this.tail.inode !== null && stat.ino !== this.tail.inode);
  }

  /** Disposes the session (a durable one releases its directory). Idempotent. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.errors.unsubscribe();
    this.session.dispose();
  }
}
