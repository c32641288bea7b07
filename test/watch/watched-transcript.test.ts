import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { WatchedTranscript, type InvalidLine } from '../../src/watch/watched-transcript';
import { compareWithReplay } from './watch-harness';

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
 * Opens the durable session and pumps, with the process "killed" (every dispatch throwing) after
 * `commits` dispatches; true when it was killed before the end of the file.
 */
function pumpAndCrash(commits: number): boolean {
  const watched = new WatchedTranscript({ file, label: 't', storeDir: store });
  let left = commits;
  const session = watched.current;
  const dispatch = session.dispatch.bind(session);
  vi.spyOn(session, 'dispatch').mockImplementation((event) => {
    if (left-- <= 0) throw new Crash('killed');
    return dispatch(event);
  });
  let killed = false;
  try {
    watched.pump();
  } catch (e) {
    if (!(e instanceof Crash)) throw e;
    killed = true;
  }
  watched.close();
  return killed;
}

describe('WatchedTranscript', () => {
  it('continues after a crash at any dispatch, inside a line or between lines, applying each event once', () => {
    writeFileSync(file, source);
    // Crash points inside the first line and inside a two-event line, at its line ends, and later.
    for (const commits of [0, 1, 2, 3, 14, 15, 16, 17, 18]) {
      rmSync(store, { recursive: true, force: true });
      expect(pumpAndCrash(commits)).toBe(true);
      pumpAndCrash(commits + 5);
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
    // "Killed" right after the report, before the line's watch/lineRead commits.
    const first = open();
    const session = first.current;
    const dispatch = session.dispatch.bind(session);
    let reported = 0;
    vi.spyOn(session, 'dispatch').mockImplementation((event) => {
      if (invalid.length > reported) throw new Crash('killed');
      return dispatch(event);
    });
    expect(() => first.pump()).toThrow(Crash);
    first.close();
    expect(invalid).toEqual([4]);
    reported = invalid.length;
    // The restarted watch continues from its cursor: line 4 again (it was not committed), then the rest.
    const second = open();
    expect(second.cursor.lines).toBe(3);
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
