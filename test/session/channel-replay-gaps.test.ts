import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ChannelReplayError, createSession, defineChannel, defineEvent, type Envelope, type EnvelopeSource, type Event } from '../../src/index';
import { flightRecorder, jsonl, readRecording } from '../../src/jsonl/index';

// docs/guide/snapshots-and-channels.md: `replay({ fromSeq })` gives every recorded event, or a
// typed error, never a silent gap. Before issue 37 an envelope whose seq was not above the last
// one emitted was dropped without a word, and a source that starts after `fromSeq` was trusted.

const roots: string[] = [];
afterEach(() => {
  for (const d of roots.splice(0)) rmSync(d, { recursive: true, force: true });
});

const ToolCalled = defineEvent('tool/called', z.object({ tool: z.string() }));
const Tools = defineChannel('tools', [ToolCalled]);

const env = (seq: number, tool: string): Envelope => ({ seq, at: seq, event: ToolCalled({ tool }) as Event, meta: {} });

/** Replays `fromSeq` on `session`'s Tools channel; returns what it emitted and how it ended. */
function replay(session: ReturnType<typeof open>, fromSeq: number, source?: EnvelopeSource): { seqs: number[]; error: unknown } {
  const seqs: number[] = [];
  let error: unknown;
  session
    .channel(Tools)
    .replay(source === undefined ? { fromSeq } : { fromSeq, source })
    .subscribe({ next: (e) => seqs.push(e.seq), error: (e: unknown) => (error = e) });
  return { seqs, error };
}

/** A memory session that committed 4 events before its channel opened (its buffer covers from 5). */
const open = () => {
  const session = createSession({ slices: [], events: [ToolCalled] });
  for (const tool of ['a', 'b', 'c', 'd']) session.dispatch(ToolCalled({ tool }));
  return session;
};

describe('channel replay from a source: every event or a typed error', () => {
  it('a source holding two runs that numbered events alike (1,2,3 then 2,3): ChannelReplayError, nothing skipped silently', () => {
    const session = open();
    const twoRuns: EnvelopeSource = { lastSeq: 4, envelopes: () => [env(1, 'a'), env(2, 'b'), env(3, 'c'), env(2, 'x'), env(3, 'y'), env(4, 'd')] };
    const { seqs, error } = replay(session, 1, twoRuns);
    expect(seqs).toEqual([1, 2, 3]);
    expect(error).toBeInstanceOf(ChannelReplayError);
    expect((error as Error).message).toContain('envelope seq 2 comes after seq 3');
  });

  it('a source in order replays every event, then the buffer, then live', () => {
    const session = open();
    const source: EnvelopeSource = { lastSeq: 4, envelopes: () => [env(1, 'a'), env(2, 'b'), env(3, 'c'), env(4, 'd')] };
    const { seqs, error } = replay(session, 2, source);
    session.dispatch(ToolCalled({ tool: 'e' }));
    expect(error).toBeUndefined();
    expect(seqs).toEqual([2, 3, 4, 5]);
  });

  it("the recording of a reopened run starts after the earlier run's events: replay from before it is a ChannelReplayError naming the gap", () => {
    const dir = mkdtempSync(join(tmpdir(), 'rxslice-replay-gap-'));
    roots.push(dir);
    const openDurable = () => createSession({ slices: [], events: [ToolCalled], storage: jsonl({ dir, fsync: 'never' }) });
    const first = openDurable();
    for (const tool of ['a', 'b', 'c']) first.dispatch(ToolCalled({ tool }));
    first.dispose();
    const second = openDurable();
    const recorder = flightRecorder(second, { file: join(dir, 'run-2.rec.jsonl') });
    second.dispatch(ToolCalled({ tool: 'd' }));
    recorder.close();
    second.dispose();
    const run2 = readRecording(join(dir, 'run-2.rec.jsonl'), { slices: [] });
    expect(run2.firstSeq).toBe(3);
    const third = openDurable();
    const seqs: number[] = [];
    let error: unknown;
    third
      .channel(Tools)
      .replay({ fromSeq: 1, source: run2 })
      .subscribe({ next: (e) => seqs.push(e.seq), error: (e: unknown) => (error = e) });
    expect(seqs).toEqual([]);
    expect(error).toBeInstanceOf(ChannelReplayError);
    expect((error as Error).message).toContain('a gap from 1 to 3');
    // From seq 4 the recording covers it.
    const later: number[] = [];
    third
      .channel(Tools)
      .replay({ fromSeq: 4, source: run2 })
      .subscribe({ next: (e) => later.push(e.seq) });
    expect(later).toEqual([4]);
    third.dispose();
  });
});
