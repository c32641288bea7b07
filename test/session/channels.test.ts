import fc from 'fast-check';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { toArray } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  append,
  ChannelReplayError,
  createSession,
  defineChannel,
  defineEvent,
  defineSlice,
  InvalidChannelError,
  type AnyChannelDef,
  type Envelope,
} from '../../src/index';
import { flightRecorder, readRecording } from '../../src/jsonl/index';

const PlanUpdated = defineEvent('plan/updated', z.object({ planId: z.string(), priority: z.enum(['low', 'high']).optional() }));
const PlanCompleted = defineEvent('plan/completed', z.object({ planId: z.string() }));
const ToolCalled = defineEvent('tool/called', z.object({ tool: z.string() }));
const Noise = defineEvent('noise/made', z.object({ n: z.number() }));

const PlanEvents = defineChannel('plan', [PlanUpdated, PlanCompleted]);
const ToolEvents = defineChannel('tool', [ToolCalled], { replayBuffer: 3 });

const Log = defineSlice('log', {
  policy: 'log',
  schema: z.string(),
  reducers: ({ on }) => [
    on(PlanUpdated, (_v, e) => append(`updated ${e.payload.planId}`), { channel: PlanEvents }),
    on(PlanCompleted, (_v, e) => append(`completed ${e.payload.planId}`), { name: 'completed', channel: PlanEvents }),
    on(ToolCalled, (_v, e) => append(`tool ${e.payload.tool}`)),
    on(Noise, (_v, e) => append(`noise ${e.payload.n}`)),
  ],
});
const session = (channels: readonly AnyChannelDef[] = [PlanEvents, ToolEvents]) => createSession({ slices: [Log], channels });
const seqs = (envs: readonly Envelope[]) => envs.map((e) => e.seq);

describe('defineChannel', () => {
  it('holds its event types; or() makes the union channel; malformed declarations are InvalidChannelError', () => {
    expect(PlanEvents.eventTypes).toEqual(['plan/updated', 'plan/completed']);
    const all = PlanEvents.or(ToolEvents);
    expect(all.name).toBe('plan|tool');
    expect(all.eventTypes).toEqual(['plan/updated', 'plan/completed', 'tool/called']);
    expect(all.replayBuffer).toBe(1000);
    expect(all.match(ToolCalled({ tool: 'x' }))).toBe(true);
    expect(all.match(Noise({ n: 1 }))).toBe(false);
    expect(() => defineChannel('', [PlanUpdated])).toThrow(InvalidChannelError);
    expect(() => defineChannel('x', [])).toThrow(/at least one event creator/);
    expect(() => defineChannel('x', [{} as never])).toThrow(/event creator/);
    expect(() => defineChannel('x', [PlanUpdated], { replayBuffer: -1 })).toThrow(/replayBuffer/);
  });

  it('a reducer declaring a channel that does not carry its event fails at definition', () => {
    expect(() =>
      defineSlice('bad', { policy: 'log', reducers: ({ on }) => [on(ToolCalled, () => append('x'), { channel: PlanEvents as never })] }),
    ).toThrow(/a reducer on "tool\/called" declares this channel, which carries only plan\/updated, plan\/completed/);
  });
});

describe('session.channel', () => {
  it('publish is dispatch (validated, same pipeline); an event outside the channel is refused and nothing changes', () => {
    const s = session();
    const plan = s.channel(PlanEvents);
    const env = plan.publish(PlanUpdated({ planId: '1' }));
    expect(env.seq).toBe(1);
    expect(s.slice(Log).all()).toEqual(['updated 1']);
    expect(() => plan.publish(ToolCalled({ tool: 'x' }) as never)).toThrow(InvalidChannelError);
    expect(() => plan.publish({ type: 'plan/updated', payload: { planId: 7 } } as never)).toThrow(expect.objectContaining({ code: 'INVALID_EVENT' }));
    expect(s.slice(Log).all()).toEqual(['updated 1']);
    expect(s.channel(PlanEvents)).toBe(plan);
    expect(() => s.channel(defineChannel('plan', [PlanUpdated]))).toThrow(/another channel of this name/);
  });

  it('opens only channels made by defineChannel (they carry the channel runtime), also from createSession({ channels })', () => {
    const s = session([]);
    const union = s.channel(PlanEvents.or(ToolEvents));
    expect(union.def.eventTypes).toEqual(['plan/updated', 'plan/completed', 'tool/called']);
    // A look-alike (a spread of a definition keeps its fields, not what it carries) is refused.
    const lookAlike = { ...PlanEvents, name: 'copy' } as AnyChannelDef;
    expect(() => s.channel(lookAlike)).toThrow(InvalidChannelError);
    expect(() => s.channel(lookAlike)).toThrow(/session\.channel takes a channel made by defineChannel/);
    expect(() => s.channel(undefined as never)).toThrow(InvalidChannelError);
    expect(() => session([lookAlike])).toThrow(InvalidChannelError);
  });

  it('subscribers see the channel’s committed events in order, with an optional filter', () => {
    const s = session();
    const plan = s.channel(PlanEvents);
    const seen: string[] = [];
    const high: string[] = [];
    plan.subscribe((e, env) => seen.push(`${env.seq}:${e.type}`));
    const sub = plan.subscribe({ filter: (e) => PlanUpdated.match(e) && e.payload.priority === 'high' }, (e) => high.push(e.payload.planId));
    s.dispatch(Noise({ n: 1 }));
    plan.publish(PlanUpdated({ planId: 'a', priority: 'high' }));
    s.dispatch(PlanCompleted({ planId: 'a' }));
    plan.publish(PlanUpdated({ planId: 'b' }));
    sub.unsubscribe();
    plan.publish(PlanUpdated({ planId: 'c', priority: 'high' }));
    expect(seen).toEqual(['2:plan/updated', '3:plan/completed', '4:plan/updated', '5:plan/updated']);
    expect(high).toEqual(['a']);
  });

  it('replay({ fromSeq }) re-emits from the buffer, then goes live without gap or duplicate at the seam', () => {
    const s = session();
    const plan = s.channel(PlanEvents);
    for (let i = 1; i <= 6; i++) s.dispatch(i % 2 === 0 ? PlanUpdated({ planId: `${i}` }) : Noise({ n: i }));
    const got: Envelope[] = [];
    const sub = plan.replay({ fromSeq: 3 }).subscribe((e) => got.push(e));
    expect(seqs(got)).toEqual([4, 6]);
    s.dispatch(PlanCompleted({ planId: 'x' }));
    s.dispatch(Noise({ n: 0 }));
    s.dispatch(PlanUpdated({ planId: 'y' }));
    expect(seqs(got)).toEqual([4, 6, 7, 9]);
    sub.unsubscribe();
  });

  it('a subscriber that publishes while the backlog is delivered sees its events after the backlog, once each, in seq order', () => {
    const s = session();
    const plan = s.channel(PlanEvents);
    for (let i = 0; i < 3; i++) plan.publish(PlanUpdated({ planId: `p${i}` }));
    const got: number[] = [];
    plan.replay({ fromSeq: 1 }).subscribe((env) => {
      got.push(env.seq);
      if (env.seq <= 3) plan.publish(PlanCompleted({ planId: `done-${env.seq}` }));
    });
    expect(got).toEqual([1, 2, 3, 4, 5, 6]);
    expect(s.slice(Log).all().slice(3)).toEqual(['completed done-1', 'completed done-2', 'completed done-3']);
  });

  it('the seam holds for any interleaving of dispatches before, during and after the replay (property)', () => {
    const op = fc.oneof(fc.constant('plan' as const), fc.constant('noise' as const), fc.constant('tool' as const));
    fc.assert(
      fc.property(fc.array(op, { maxLength: 15 }), fc.integer({ min: 1, max: 20 }), fc.array(op, { maxLength: 5 }), fc.array(op, { maxLength: 10 }), (before, fromSeq, during, after) => {
        const s = session([PlanEvents.or(ToolEvents)]);
        const both = s.channel(PlanEvents.or(ToolEvents));
        const fire = (o: 'plan' | 'noise' | 'tool', i: number) =>
          s.dispatch(o === 'plan' ? PlanUpdated({ planId: `${i}` }) : o === 'tool' ? ToolCalled({ tool: `${i}` }) : Noise({ n: i }));
        const committed: { seq: number; type: string }[] = [];
        s.committed$.subscribe((c) => committed.push({ seq: c.seq, type: c.event.type }));
        before.forEach(fire);
        const got: number[] = [];
        let k = 0;
        both.replay({ fromSeq }).subscribe((env) => {
          got.push(env.seq);
          if (k < during.length) fire(during[k] as 'plan', 100 + k++);
        });
        after.forEach(fire);
        const expected = committed.filter((c) => c.seq >= fromSeq && c.type !== 'noise/made').map((c) => c.seq);
        expect(got).toEqual(expected);
      }),
      { numRuns: 300 },
    );
  });

  it('asking for events the buffer no longer holds is ChannelReplayError, never a silent gap', () => {
    const s = session();
    const tool = s.channel(ToolEvents); // buffer of 3
    for (let i = 1; i <= 5; i++) tool.publish(ToolCalled({ tool: `${i}` }));
    expect(tool.bufferedFromSeq).toBe(3);
    const errors: unknown[] = [];
    tool.replay({ fromSeq: 2 }).subscribe({ error: (e) => errors.push(e) });
    expect(errors[0]).toBeInstanceOf(ChannelReplayError);
    expect((errors[0] as ChannelReplayError).availableFromSeq).toBe(3);
    expect((errors[0] as Error).message).toContain('cannot replay from seq 2');
    const ok: number[] = [];
    tool.replay({ fromSeq: 3 }).subscribe((e) => ok.push(e.seq));
    expect(ok).toEqual([3, 4, 5]);
    // A channel opened late buffers from then on.
    const late = createSession({ slices: [Log] });
    late.dispatch(PlanUpdated({ planId: 'before' }));
    const plan = late.channel(PlanEvents);
    plan.replay({ fromSeq: 1 }).subscribe({ error: (e) => errors.push(e) });
    expect((errors[1] as ChannelReplayError).availableFromSeq).toBe(2);
    tool.replay({ fromSeq: 0 }).subscribe({ error: (e) => errors.push(e) });
    expect(errors[2]).toBeInstanceOf(RangeError);
  });

  it('replays older events from a flight recording, then the buffer, then live; a source that leaves a gap is an error', () => {
    const dir = mkdtempSync(join(tmpdir(), 'rxslice-channel-'));
    try {
      const file = join(dir, 'run.jsonl');
      const s = createSession({ slices: [Log] });
      const recorder = flightRecorder(s, { file, snapshotEvery: 4 });
      const tool = s.channel(ToolEvents); // opened now: buffer of the last 3 tool events
      for (let i = 1; i <= 8; i++) s.dispatch(i % 3 === 0 ? Noise({ n: i }) : ToolCalled({ tool: `${i}` }));
      recorder.close();
      const recording = readRecording(file, { slices: [Log] });
      expect(tool.bufferedFromSeq).toBe(5);
      const got: number[] = [];
      tool.replay({ fromSeq: 1, source: recording }).subscribe((e) => got.push(e.seq));
      s.dispatch(ToolCalled({ tool: 'live' }));
      expect(got).toEqual([1, 2, 4, 5, 7, 8, 9]);
      const short = { lastSeq: 2, envelopes: () => [] };
      const errors: unknown[] = [];
      tool.replay({ fromSeq: 1, source: short }).subscribe({ error: (e) => errors.push(e) });
      expect((errors[0] as Error).message).toContain(`a gap from 3 to ${tool.bufferedFromSeq - 1}`);
      s.dispose();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('replay is cold and completes when the session is disposed', () => {
    const s = session();
    const plan = s.channel(PlanEvents);
    plan.publish(PlanUpdated({ planId: 'a' }));
    const replay = plan.replay({ fromSeq: 1 });
    let all: number[] | undefined;
    replay.pipe(toArray()).subscribe((xs) => (all = xs.map((e) => e.seq)));
    const again: number[] = [];
    replay.subscribe((e) => again.push(e.seq));
    plan.publish(PlanUpdated({ planId: 'b' }));
    s.dispose();
    expect(all).toEqual([1, 2]);
    expect(again).toEqual([1, 2]);
  });
});
