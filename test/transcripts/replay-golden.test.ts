/**
 * "Same results, byte for byte" (issue 22 item 3): the replay of the bundled transcripts gives
 * the same reports and the same final session state as it did before the replay was made faster.
 * The hashes below were computed on main at a6ff7bd (before the change); a change to the store
 * that alters any item, any report line (throughput aside) or any slice of the final snapshot
 * (the statechart's included) changes them.
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { Event } from '../../src/index';
import { TranscriptClock, timestampOf } from '../../src/transcripts/clock';
import { parseTranscript, splitLines } from '../../src/transcripts/parse';
import { createTranscriptSession, replayTranscript, type TranscriptSession } from '../../src/transcripts/replay';
import { formatReport } from '../../src/transcripts/report';

const DATA = fileURLToPath(new URL('../../examples/data', import.meta.url));
const FILES = readdirSync(DATA)
  .filter((f) => f.endsWith('.jsonl'))
  .sort();

const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');

/** The session's final state: every slice's items, logs included (the statechart's snapshot slice too), its seq and time. */
function stateJson(session: TranscriptSession): string {
  const { seq, at, slices } = session.snapshot({ includeLogs: true }).toJSON();
  // The golden hashes predate the slices' `appended` count in snapshot JSON: the state is their items.
  const items = Object.fromEntries(Object.entries(slices).map(([name, { appended: _appended, ...rest }]) => [name, rest]));
  return JSON.stringify({ seq, at, slices: items });
}

/** The report without its throughput lines (wall-clock timings). */
const reportText = (text: string): string =>
  text
    .split('\n')
    .filter((l) => !/throughput|events\/s|dispatch with validation/.test(l))
    .join('\n');

describe('replay of the bundled transcripts: same results as before the speed-up', () => {
  it('each transcript alone: the same report and final state', () => {
    const out: string[] = [];
    for (const file of FILES) {
      const session = createTranscriptSession();
      const report = replayTranscript(splitLines(readFileSync(path.join(DATA, file), 'utf8')), { source: file, session });
      out.push(reportText(formatReport(report)), stateJson(session));
      session.dispose();
    }
    expect(FILES.length).toBe(8);
    expect(sha256(out.join('\n'))).toBe('ca125b8786eb2086c069737e7e2a4161ecb73a168bbd13b1a3b67e4d6a8ef29b');
  });

  it('every transcript cycled three times through one session (windows full, statechart and notifications running): the same final state', () => {
    const events: Event[] = [];
    for (const file of FILES) events.push(...parseTranscript(splitLines(readFileSync(path.join(DATA, file), 'utf8'))).events);
    const session = createTranscriptSession();
    const clock = session.scheduler as TranscriptClock;
    let rejected = 0;
    for (let cycle = 0; cycle < 3; cycle++) {
      for (const event of events) {
        const at = timestampOf(event);
        if (at !== undefined) clock.advanceTo(at);
        try {
          session.dispatch(event);
        } catch {
          rejected++;
        }
      }
    }
    clock.finish();
    const state = stateJson(session);
    session.dispose();
    expect(rejected).toBe(0);
    expect(sha256(state)).toBe('18ca85fb594040ddef523b37b69fc073233cee6f209649c282eeb96ced603e3b');
  });
});
