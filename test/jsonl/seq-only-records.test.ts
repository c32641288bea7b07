import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { append, createSession, defineChannel, defineEvent, defineSlice, memory, type Envelope, type EnvelopeSource } from '../../src/index';
import { flightRecorder, jsonl, readRecording, type Recording } from '../../src/jsonl/index';
import { encodeRecord } from '../../src/jsonl/journal-format';

// Issue 37: the journal kept only events that changed a stored slice, so a reopen continued from
// the last STORED seq and numbered the next event with a seq already given out (and recorded).
// An event that stores nothing now leaves a seq-only record (`"slices":{}`).

const roots: string[] = [];
const freshDir = (): string => {
  const d = mkdtempSync(join(tmpdir(), 'rxslice-seq-only-'));
  roots.push(d);
  return d;
};
afterEach(() => {
  for (const d of roots.splice(0)) rmSync(d, { recursive: true, force: true });
});

const PlanUpdated = defineEvent('plan/updated', z.object({ planId: z.string() }));
const ToolCalled = defineEvent('tool/called', z.object({ tool: z.string() }));
/** The only stored slice: `tool/called` changes nothing stored. */
const Plan = defineSlice('plan', { policy: 'state', schema: z.object({ planId: z.string() }), reducers: ({ onLatest }) => [onLatest(PlanUpdated, (_c, e) => e.payload)] });
/** A memory-only log of tool calls (per-policy storage below). */
const Calls = defineSlice('calls', { policy: 'log', schema: z.string(), reducers: ({ on }) => [on(ToolCalled, (_v, e) => append(e.payload.tool))] });
const Work = defineChannel('work', [PlanUpdated, ToolCalled]);

const records = (dir: string, file = 'journal-0.jsonl'): { seq: number; prev: number; slices: Record<string, unknown> }[] =>
  readFileSync(join(dir, file), 'utf8')
    .trimEnd()
    .split('\n')
    .map((line) => (JSON.parse(line) as { rec: { seq: number; prev: number; slices: Record<string, unknown> } }).rec);

/** Two recordings read as one source, in file order (what a user joining the runs' files gets). */
const joined = (a: Recording, b: Recording): EnvelopeSource => ({
  lastSeq: Math.max(a.lastSeq, b.lastSeq),
  envelopes: (range) => [...a.envelopes(range), ...b.envelopes(range)],
});

describe('seq stays unique and increasing across reopens (seq-only records)', () => {
  it("1:plan/updated 2,3:tool/called (stored nothing), reopen: lastSeq 3, the next event is 4; both runs' recordings replay every event", () => {
    const dir = freshDir();
    const open = () => createSession({ slices: [Plan], events: [ToolCalled], channels: [Work], storage: jsonl({ dir, fsync: 'never' }) });
    const first = open();
    const rec1 = flightRecorder(first, { file: join(dir, 'run-1.rec.jsonl') });
    first.dispatch(PlanUpdated({ planId: 'p1' }));
    first.dispatch(ToolCalled({ tool: 'bash' }));
    first.dispatch(ToolCalled({ tool: 'grep' }));
    rec1.close();
    first.dispose();
    expect(records(dir).map((r) => [r.seq, r.prev, Object.keys(r.slices)])).toEqual([
      [1, 0, ['plan']],
      [2, 1, []],
      [3, 2, []],
    ]);

    const second = open();
    expect(second.lastSeq).toBe(3);
    const rec2 = flightRecorder(second, { file: join(dir, 'run-2.rec.jsonl') });
    expect(second.dispatch(ToolCalled({ tool: 'edit' })).seq).toBe(4);
    rec2.close();
    second.dispose();

    const run1 = readRecording(join(dir, 'run-1.rec.jsonl'), { slices: [Plan] });
    const run2 = readRecording(join(dir, 'run-2.rec.jsonl'), { slices: [Plan] });
    expect([...run1.envelopeSeqs, ...run2.envelopeSeqs]).toEqual([1, 2, 3, 4]);

    const third = open();
    const seen: string[] = [];
    third
      .channel(Work)
      .replay({ fromSeq: 1, source: joined(run1, run2) })
      .subscribe({ next: (env: Envelope) => seen.push(`${env.seq}:${JSON.stringify(env.event.payload)}`), error: (e: unknown) => seen.push(`error ${String(e)}`) });
    expect(seen).toEqual(['1:{"planId":"p1"}', '2:{"tool":"bash"}', '3:{"tool":"grep"}', '4:{"tool":"edit"}']);
    third.dispose();
  });

  it('per-policy storage: events that changed only memory slices leave their seq in the JSONL journal', () => {
    const dir = freshDir();
    const open = () => createSession({ slices: [Plan, Calls], storage: { state: jsonl({ dir, fsync: 'never' }), log: memory() } });
    const first = open();
    first.dispatch(PlanUpdated({ planId: 'p1' }));
    for (const tool of ['a', 'b', 'c']) first.dispatch(ToolCalled({ tool }));
    first.dispose();
    const second = open();
    expect(second.lastSeq).toBe(4);
    expect(second.read(Plan)).toEqual([{ planId: 'p1' }]);
    expect(second.dispatch(ToolCalled({ tool: 'd' })).seq).toBe(5);
    second.dispose();
  });

  it('two JSONL directories: an event that stored nothing goes to one; the reopen takes the highest seq of both', () => {
    const [a, b] = [freshDir(), freshDir()];
    const Log = defineSlice('log', { policy: 'log', schema: z.string(), reducers: ({ on }) => [on(ToolCalled, (_v, e) => append(e.payload.tool))] });
    const Noted = defineEvent('note/noted', z.object({}));
    const open = () => createSession({ slices: [Plan, Log], events: [Noted], storage: { state: jsonl({ dir: a, fsync: 'never' }), log: jsonl({ dir: b, fsync: 'never' }) } });
    const first = open();
    first.dispatch(PlanUpdated({ planId: 'p1' })); // 1 in a
    first.dispatch(ToolCalled({ tool: 'x' })); // 2 in b
    first.dispatch(Noted({})); // 3: stored nothing, seq-only in one of them
    first.dispose();
    const all = [...records(a), ...records(b)].map((r) => r.seq).sort((x, y) => x - y);
    expect(all).toEqual([1, 2, 3]);
    const second = open();
    expect(second.lastSeq).toBe(3);
    expect(second.dispatch(Noted({})).seq).toBe(4);
    second.dispose();
  });

  it('compacts with seq-only records in the journal: the base takes the last seq, the reopen continues after it', () => {
    const dir = freshDir();
    const open = () => createSession({ slices: [Plan], events: [ToolCalled], storage: jsonl({ dir, fsync: 'never', compactBytes: 2048 }) });
    const first = open();
    first.dispatch(PlanUpdated({ planId: 'p1' }));
    for (let i = 0; i < 200; i++) first.dispatch(ToolCalled({ tool: `t${i}` }));
    first.dispose();
    const second = open();
    expect(second.lastSeq).toBe(201);
    expect(second.read(Plan)).toEqual([{ planId: 'p1' }]);
    expect(second.dispatch(ToolCalled({ tool: 'next' })).seq).toBe(202);
    second.dispose();
  });

  it('an old-format directory (no seq-only records: seq 1 then 3) still opens and continues after 3', () => {
    const dir = freshDir();
    const lines =
      encodeRecord(1, 0, 1000, JSON.stringify({ plan: { v: 1, ops: [['r', [{ planId: 'p1' }]]] } })) +
      encodeRecord(3, 1, 1002, JSON.stringify({ plan: { v: 1, ops: [['r', [{ planId: 'p3' }]]] } }));
    writeFileSync(join(dir, 'journal-0.jsonl'), lines);
    const session = createSession({ slices: [Plan], events: [ToolCalled], storage: jsonl({ dir, fsync: 'never' }) });
    expect(session.lastSeq).toBe(3);
    expect(session.read(Plan)).toEqual([{ planId: 'p3' }]);
    expect(session.dispatch(ToolCalled({ tool: 'x' })).seq).toBe(4);
    session.dispose();
    expect(records(dir).map((r) => [r.seq, r.prev])).toEqual([
      [1, 0],
      [3, 1],
      [4, 3],
    ]);
  });
});
