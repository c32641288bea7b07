import { appendFileSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { WatchedTranscript, type InvalidLine } from '../../src/watch/watched-transcript';
import { SESSION_INTERNALS } from '../../src/session/internals';
import type { WatchSession } from '../../src/watch/watch-session';
import { transcriptEvents } from '../../src/transcripts/events';
import { ToolStatsItem } from '../../src/transcripts/slices';
import { committedInRun, LineRead, WatchCursor, WatchRun, watchEvents } from '../../src/watch/watch-cursor';
import { watchSessionEvents } from '../../src/watch/watch-session';
import { MachineTimerFired } from '../../src/machines/session-machine';
import * as lifecycleModule from '../../src/effects/lifecycle-events';
import type { EventCreator } from '../../src/index';
import { BudgetExceeded, WatchAlerts } from '../../src/watch/budgets';
import { createSession, defineSlice } from '../../src/index';
import { jsonl } from '../../src/jsonl/index';
import { z } from 'zod';
import { TranscriptClock, timestampOf } from '../../src/transcripts/clock';
import { notificationEvents, NotificationChannel, type TranscriptDeps } from '../../src/transcripts/notifications';
import { AgentPhases } from '../../src/transcripts/phases';
import { transcriptSlices } from '../../src/transcripts/slices';
import { parseLine, splitLines } from '../../src/transcripts/parse';
import { compareWithReplay } from './watch-harness';
import { sessionStatus } from '../../src/watch/session-status';

const data = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'examples', 'data');
// 15 lines, 17 events (a line with a tool call gives two), two failed tool calls.
const source = readFileSync(join(data, 'spotter-short.jsonl'));

let dir: string;
let file: string;
let store: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'rxslice-watched-'));
  file = join(dir, 't.jsonl');
  store = join(dir, 'store');
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

class Crash extends Error {}

/**
 * Makes every dispatch of `session` (the transcript events' trusted dispatches and the watch's own
 * events) throw a {@link Crash} once `killed()` says so, as a kill -9 would stop it there.
 */
function killWhen(session: WatchSession, killed: () => boolean): void {
  const dispatch = session.dispatch.bind(session);
  vi.spyOn(session, 'dispatch').mockImplementation((event) => {
    if (killed()) throw new Crash('killed');
    return dispatch(event);
  });
  const internals = session[SESSION_INTERNALS];
  const dispatchTrusted = internals.dispatchTrusted.bind(internals);
  vi.spyOn(internals, 'dispatchTrusted').mockImplementation((event) => {
    if (killed()) throw new Crash('killed');
    return dispatchTrusted(event);
  });
}

/**
 * Opens the durable session and pumps runs of `maxLines` lines, with the process "killed" (every
 * dispatch throwing) after `commits` dispatches; true when it was killed before the end of the file.
 */
function pumpAndCrash(commits: number, maxLines = Infinity): boolean {
  const watched = new WatchedTranscript({ file, label: 't', storeDir: store });
  let left = commits;
  killWhen(watched.current, () => left-- <= 0);
  let killed = false;
  try {
    while (watched.pump(maxLines).lines > 0);
  } catch (e) {
    if (!(e instanceof Crash)) throw e;
    killed = true;
  }
  watched.close();
  return killed;
}

describe('WatchedTranscript', () => {
  it('continues after a crash at any dispatch, inside a run of lines or between runs, applying each event once', () => {
    writeFileSync(file, source);
    // Runs of 4 lines (17 events, 4 watch/lineRead): a crash at every dispatch, then a second run
    // (another run length) crashed 5 dispatches later.
    for (let commits = 0; commits < 21; commits++) {
      rmSync(store, { recursive: true, force: true });
      expect(pumpAndCrash(commits, 4)).toBe(true);
      pumpAndCrash(commits + 5, 3);
      const watched = new WatchedTranscript({ file, label: 't', storeDir: store });
      watched.pump();
      watched.close();
      const c = compareWithReplay(file, store);
      expect({ commits, events: c.cursor.events, lines: c.cursor.lines, offset: c.cursor.offset }).toEqual({ commits, events: c.replay.events, lines: 15, offset: source.length });
      expect(c.storedState).toEqual(c.replayState);
    }
  });

  it('applies a line only once its newline is written, and reports a line that is not JSON (file, line number, reason) with no event', () => {
    const invalid: InvalidLine[] = [];
    const watched = new WatchedTranscript({ file, label: 't', onInvalidLine: (line) => invalid.push(line) });
    const firstLine = source.indexOf(0x0a) + 1;
    appendFileSync(file, source.subarray(0, firstLine - 5));
    expect(watched.pump()).toEqual({ lines: 0, events: 0, refused: 0 });
    appendFileSync(file, source.subarray(firstLine - 5, firstLine));
    expect(watched.pump()).toEqual({ lines: 1, events: 1, refused: 0 });
    expect(invalid).toEqual([]);
    appendFileSync(file, 'not json\n');
    expect(watched.pump()).toEqual({ lines: 1, events: 0, refused: 0 });
    expect(watched.cursor).toMatchObject({ lines: 2, events: 1, offset: firstLine + 9 });
    expect(invalid).toEqual([{ file, line: 2, offset: firstLine, reason: 'invalid JSON: Unexpected token \'o\', "not json" is not valid JSON' }]);
    // JSON that is not a transcript line (another kind of line, a blank line) is no such report.
    appendFileSync(file, '{"type":"custom-title"}\n\n');
    expect(watched.pump()).toEqual({ lines: 2, events: 0, refused: 0 });
    expect(invalid).toHaveLength(1);
    watched.close();
  });

  it('a line that is not JSON is reported before it is committed: a crash in between reports it again, a committed one never', () => {
    const lines = source.toString('utf8').split('\n');
    // A line cut off (by a crash of the writer) in the middle of the transcript: line 4.
    writeFileSync(file, [...lines.slice(0, 3), lines[3]!.slice(0, 40), ...lines.slice(3)].join('\n'));
    const invalid: number[] = [];
    const open = () => new WatchedTranscript({ file, label: 't', storeDir: store, onInvalidLine: (l) => invalid.push(l.line) });
    // "Killed" right after the report, before the run's watch/lineRead commits.
    const first = open();
    let reported = 0;
    killWhen(first.current, () => invalid.length > reported);
    expect(() => first.pump()).toThrow(Crash);
    first.close();
    expect(invalid).toEqual([4]);
    reported = invalid.length;
    // The restarted watch continues from its cursor (no line was committed: one run takes every
    // line read): line 4 again, then the rest; the events committed before the crash are passed over.
    const second = open();
    expect(second.cursor).toMatchObject({ lines: 0, eventsInLine: 0, seq: 0 });
    // Counted by the session's seq: nothing but transcript events was committed after the cursor's.
    expect(second.current.lastSeq).toBe(3);
    expect(committedInRun(second.cursor, second.current.lastSeq)).toBe(3);
    // Committed, so counted in the status, though the run that committed them was not closed.
    expect(sessionStatus(second).events).toBe(3);
    second.pump();
    second.close();
    expect(invalid).toEqual([4, 4]);
    // Once committed, a restart does not report it again.
    const third = open();
    expect(third.pump()).toEqual({ lines: 0, events: 0, refused: 0 });
    third.close();
    expect(invalid).toEqual([4, 4]);
    // No event lost or applied twice: the store equals a replay of the file.
    const c = compareWithReplay(file, store);
    expect({ events: c.cursor.events, lines: c.cursor.lines }).toEqual({ events: c.replay.events, lines: 16 });
    expect(c.storedState).toEqual(c.replayState);
  });

  it('counts the events of a run not closed yet past other events committed among them (an alert between runs, one inside a run)', () => {
    writeFileSync(file, source);
    const alert = (n: number) => BudgetExceeded({ budget: 'tokens', value: n, limit: 1, phase: null, sinceMs: null, atMs: null, message: `alert ${n}` });
    // Runs of 4 lines; an alert after the first run and another before the (k + 1)-th event of the
    // second run; a crash at the n-th dispatch after the first alert.
    for (let k = 0; k < 5; k++) {
      for (let n = 0; n < 7; n++) {
        rmSync(store, { recursive: true, force: true });
        const watched = new WatchedTranscript({ file, label: 't', storeDir: store });
        watched.pump(4);
        watched.current.dispatch(alert(1));
        // As killWhen, with the alert dispatched before the (k + 1)-th transcript event.
        const session = watched.current;
        const internals = session[SESSION_INTERNALS];
        const dispatch = session.dispatch.bind(session);
        const dispatchTrusted = internals.dispatchTrusted.bind(internals);
        let trusted = 0;
        let killed = false;
        vi.spyOn(session, 'dispatch').mockImplementation((event) => {
          if (killed) throw new Crash('killed');
          return dispatch(event);
        });
        vi.spyOn(internals, 'dispatchTrusted').mockImplementation((event) => {
          if (trusted === k) dispatch(alert(2));
          if (trusted++ >= n) killed = true;
          if (killed) throw new Crash('killed');
          return dispatchTrusted(event);
        });
        let crashed = false;
        try {
          watched.pump(4);
        } catch (e) {
          if (!(e instanceof Crash)) throw e;
          crashed = true;
        }
        vi.restoreAllMocks();
        watched.close();
        const reopened = new WatchedTranscript({ file, label: 't', storeDir: store });
        // Killed after n events of the run: n committed (none left to count once the run closed).
        expect({ k, n, committed: committedInRun(reopened.cursor, reopened.current.lastSeq) }).toEqual({ k, n, committed: crashed ? n : 0 });
        reopened.pump();
        expect(reopened.current.slice(WatchAlerts).size).toBe(trusted > k ? 2 : 1);
        reopened.close();
        const c = compareWithReplay(file, store);
        expect({ k, n, events: c.cursor.events, lines: c.cursor.lines }).toEqual({ k, n, events: c.replay.events, lines: 15 });
        expect(c.storedState).toEqual(c.replayState);
      }
    }
  });

  it('moves the cursor on every event a watch session knows that is not a transcript event (the ones committed after its seq are counted as transcript events)', () => {
    const transcript = new Set(transcriptEvents.map((creator) => creator.type));
    const others = watchSessionEvents.map((creator) => creator.type).filter((type) => !transcript.has(type));
    expect(others.length).toBeGreaterThan(4);
    const moving = new Set(WatchCursor.reducers.map((entry) => entry.eventType));
    expect(others.filter((type) => !moving.has(type))).toEqual([]);
    // The library events a session commits on its own (a statechart's timer, an effect's lifecycle).
    expect([MachineTimerFired.type, 'rxslice.effect.started', 'rxslice.effect.failed', 'rxslice.effect.compensated'].filter((type) => !moving.has(type))).toEqual([]);
    // Every lifecycle event the effect module defines (one added later included) moves the cursor.
    const lifecycle = Object.values(lifecycleModule).filter((value): value is EventCreator<string, any> => typeof value === 'function' && typeof (value as { type?: unknown }).type === 'string');
    expect(lifecycle.length).toBe(7);
    expect(lifecycle.map((creator) => creator.type).filter((type) => !moving.has(type))).toEqual([]);
    writeFileSync(file, source);
    const watched = new WatchedTranscript({ file, label: 't' });
    watched.pump(4);
    const timer = watched.current[SESSION_INTERNALS].dispatchSystem(MachineTimerFired({ machine: 'none' }));
    expect(watched.cursor.seq).toBe(timer.seq);
    watched.close();
    expect([...transcript].filter((type) => moving.has(type))).toEqual([]);
  });

  it('opens the store of an earlier version (transcript events counted in watchRun) killed in the middle of a run, and passes over its committed events', () => {
    writeFileSync(file, source);
    // The cursor and run counter as earlier versions defined them (no seq: each transcript event bumped watchRun).
    const OldCursor = defineSlice('watchCursor', {
      policy: 'state',
      schema: z.object({ offset: z.number(), ino: z.number().nullable(), lines: z.number(), eventsInLine: z.number(), events: z.number(), refused: z.number(), clockMs: z.number().nullable() }),
      initial: [{ offset: 0, ino: null, lines: 0, eventsInLine: 0, events: 0, refused: 0, clockMs: null }],
      reducers: ({ onLatest }) => [
        onLatest(LineRead, (c, { payload }) => ({ ...c!, offset: payload.offset, ino: payload.ino, lines: c!.lines + (payload.lines ?? 1), eventsInLine: 0, events: c!.events + (payload.events ?? 0), clockMs: payload.clockMs })),
      ],
    });
    const OldRun = defineSlice('watchRun', {
      policy: 'state',
      schema: z.number(),
      initial: [0],
      reducers: ({ onLatest }) => [...transcriptEvents.map((creator) => onLatest(creator, (n: number | undefined) => (n ?? 0) + 1)), onLatest(LineRead, () => 0)],
    });
    const clock = new TranscriptClock();
    const old = createSession<TranscriptDeps>({
      validation: 'always',
      scheduler: clock,
      dependencies: { channel: new NotificationChannel() },
      slices: [...transcriptSlices, OldCursor, OldRun, WatchAlerts],
      events: [...transcriptEvents, ...notificationEvents, ...watchEvents, BudgetExceeded],
      storage: jsonl({ dir: store }),
    });
    old.install(AgentPhases);
    old.errors$.subscribe(() => undefined);
    const lines = splitLines(source.toString('utf8'));
    const apply = (from: number, to: number): number => {
      let events = 0;
      for (const line of lines.slice(from, to)) {
        for (const event of parseLine(line).events) {
          const at = timestampOf(event);
          if (at !== undefined) clock.advanceTo(at);
          old.dispatch(event);
          events++;
        }
      }
      return events;
    };
    const closed = apply(0, 5);
    const offset = Buffer.byteLength(lines.slice(0, 5).join('\n') + '\n');
    old.dispatch(LineRead({ offset, ino: statSync(file).ino, clockMs: clock.now(), lines: 5, events: closed }));
    // Killed three lines into the next run.
    const committed = apply(5, 8);
    expect(committed).toBeGreaterThan(2);
    old.dispose();

    const watched = new WatchedTranscript({ file, label: 't', storeDir: store });
    expect(watched.cursor).toMatchObject({ offset, lines: 5, events: closed, committedInLine: committed });
    expect(watched.current.slice(WatchRun).latest()).toBe(0);
    expect(committedInRun(watched.cursor, watched.current.lastSeq)).toBe(committed);
    expect(watched.pump()).toEqual({ lines: 10, events: 17 - closed - committed, refused: 0 });
    watched.close();
    const c = compareWithReplay(file, store);
    expect({ events: c.cursor.events, lines: c.cursor.lines }).toEqual({ events: c.replay.events, lines: 15 });
    expect(c.storedState).toEqual(c.replayState);
  });

  it('starts a stored session over when its file was truncated while nobody watched, and says so', () => {
    writeFileSync(file, source);
    const first = new WatchedTranscript({ file, label: 't', storeDir: store });
    first.pump();
    first.close();
    writeFileSync(file, source.subarray(0, source.indexOf(0x0a) + 1));
    const second = new WatchedTranscript({ file, label: 't', storeDir: store });
    expect(second.openedRestart).toBe('truncated');
    expect(second.pump()).toEqual({ lines: 1, events: 1, refused: 0 });
    second.close();
    const c = compareWithReplay(file, store);
    expect(c.storedState).toEqual(c.replayState);
  });
});

describe('WatchedTranscript validates each line once', () => {
  it("validates a line's payloads with its line schema only: the events parseLine made of it are not validated again at dispatch, the watch's own events and the reducers' output are", () => {
    writeFileSync(file, source);
    const eventChecks = transcriptEvents.map((creator) => vi.spyOn(creator.schema!, 'safeParse'));
    const cursorChecks = vi.spyOn(LineRead.schema!, 'safeParse');
    const itemChecks = vi.spyOn(ToolStatsItem, 'safeParse');
    const watched = new WatchedTranscript({ file, label: 't' });
    try {
      expect(watched.pump()).toEqual({ lines: 15, events: 17, refused: 0 });
      expect(eventChecks.reduce((n, spy) => n + spy.mock.calls.length, 0)).toBe(0);
      expect(cursorChecks).toHaveBeenCalledTimes(1);
      // Each tool call and result replaces the toolStats item, checked by its slice schema.
      expect(itemChecks.mock.calls.length).toBeGreaterThanOrEqual(4);
    } finally {
      watched.close();
      vi.restoreAllMocks();
    }
  });
});
