import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { add, createSession, defineState, dictMerge, field, InvalidUpdateError, overwrite, ReducerError, setUnion } from '../../src/index';

const ToolCall = z.object({ id: z.string(), tool: z.string() });
const TokenMetrics = z.object({ totalInput: z.number(), totalOutput: z.number(), byAgent: z.record(z.string(), z.number()) });
type TokenMetrics = z.infer<typeof TokenMetrics>;
const tokenMerge = (a: TokenMetrics, b: TokenMetrics): TokenMetrics => {
  const byAgent = { ...a.byAgent };
  for (const [k, v] of Object.entries(b.byAgent)) byAgent[k] = (byAgent[k] ?? 0) + v;
  return { totalInput: a.totalInput + b.totalInput, totalOutput: a.totalOutput + b.totalOutput, byAgent };
};

const Execution = defineState('execution', {
  profileId: field(z.string(), { default: '' }),
  toolCalls: field(z.array(ToolCall), { reducer: add, default: [] }),
  driverSessions: field(z.record(z.string(), z.object({ driver: z.string() })), { reducer: dictMerge, default: {} }),
  completedSteps: field(z.array(z.string()), { reducer: setUnion, default: [] }),
  tokenMetrics: field(TokenMetrics, { reducer: tokenMerge, default: { totalInput: 0, totalOutput: 0, byAgent: {} } }),
  status: field(z.enum(['running', 'completed', 'failed']), { default: 'running' }),
});
const session = () => createSession({ slices: [Execution] });
const tokens = (agent: string, input: number, output: number): TokenMetrics => ({ totalInput: input, totalOutput: output, byAgent: { [agent]: input + output } });

describe('defineState', () => {
  it('starts from the defaults, frozen; a partial update changes only its fields', () => {
    const s = session();
    expect(s.slice(Execution).latest()).toEqual(Execution.defaults);
    s.dispatch(Execution.update({ profileId: 'p1', status: 'completed' }));
    const v = s.slice(Execution).latest();
    expect(v).toMatchObject({ profileId: 'p1', status: 'completed', toolCalls: [] });
    expect(Object.isFrozen(v)).toBe(true);
    expect(s.slice(Execution).size).toBe(1);
  });

  it('several writers in one step merge field by field: add, dictMerge, setUnion and a custom reducer', () => {
    const s = session();
    s.dispatch(Execution.update({ toolCalls: [{ id: '1', tool: 'read' }], completedSteps: ['plan'] }));
    s.dispatch(
      Execution.updateMany([
        { toolCalls: [{ id: '2', tool: 'edit' }], driverSessions: { dev: { driver: 'a' } }, completedSteps: ['plan', 'code'], tokenMetrics: tokens('developer', 10, 5) },
        { toolCalls: [{ id: '3', tool: 'test' }], driverSessions: { rev: { driver: 'b' } }, completedSteps: ['review'], tokenMetrics: tokens('reviewer', 3, 1), status: 'completed' },
      ]),
    );
    expect(s.slice(Execution).latest()).toEqual({
      profileId: '',
      toolCalls: [
        { id: '1', tool: 'read' },
        { id: '2', tool: 'edit' },
        { id: '3', tool: 'test' },
      ],
      driverSessions: { dev: { driver: 'a' }, rev: { driver: 'b' } },
      completedSteps: ['plan', 'code', 'review'],
      tokenMetrics: { totalInput: 13, totalOutput: 6, byAgent: { developer: 15, reviewer: 4 } },
      status: 'completed',
    });
  });

  it('two writes of a single-writer field in one step are InvalidUpdateError, and nothing changes', () => {
    const s = session();
    expect(() => Execution.updateMany([{ status: 'completed' }, { status: 'failed' }])).toThrow(InvalidUpdateError);
    expect(() => Execution.updateMany([{ status: 'completed' }, { status: 'failed' }])).toThrow(/single writer/);
    // A hand-made event with the same conflict fails in the reducer: the whole event is rejected.
    const before = s.slice(Execution).latest();
    let error: unknown;
    try {
      s.dispatch(Execution.Updated({ updates: [{ toolCalls: [{ id: 'x', tool: 't' }] }, { status: 'completed' }, { status: 'failed' }] }));
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ReducerError);
    expect((error as ReducerError).cause).toBeInstanceOf(InvalidUpdateError);
    expect(s.slice(Execution).latest()).toBe(before);
    expect(s.lastSeq).toBe(0);
  });

  it('overwrite(value) bypasses the reducer, once per field and step; unknown fields and invalid values are refused', () => {
    const s = session();
    s.dispatch(Execution.update({ toolCalls: [{ id: '1', tool: 'read' }] }));
    s.dispatch(Execution.updateMany([{ toolCalls: overwrite([]) }, { completedSteps: ['x'] }]));
    expect(s.slice(Execution).latest()?.toolCalls).toEqual([]);
    expect(() => Execution.updateMany([{ toolCalls: overwrite([]) }, { toolCalls: overwrite([]) }])).toThrow(/overwritten twice/);
    expect(() => Execution.update({ nope: 1 } as never)).toThrow(/no such field/);
    expect(() => s.dispatch(Execution.update({ status: 'paused' as never }))).toThrow(expect.objectContaining({ code: 'INVALID_EVENT' }));
    expect(() => s.dispatch(Execution.update({ toolCalls: [{ id: 1 }] as never }))).toThrow(expect.objectContaining({ code: 'INVALID_EVENT' }));
    expect(s.slice(Execution).latest()?.toolCalls).toEqual([]);
  });

  it('is a slice: snapshots and restore cover it', () => {
    const s = session();
    s.dispatch(Execution.update({ profileId: 'a' }));
    const snap = s.snapshot();
    s.dispatch(Execution.update({ profileId: 'b' }));
    s.restore(snap);
    expect(s.slice(Execution).latest()?.profileId).toBe('a');
  });

  it('two writers interleaved in every order lose no update (property)', () => {
    type U = Parameters<typeof Execution.update>[0];
    const writer = (agent: string) =>
      fc.array(
        fc.record({ call: fc.integer({ min: 0, max: 99 }), step: fc.constantFrom('a', 'b', 'c'), input: fc.integer({ min: 0, max: 9 }) }).map(
          ({ call, step, input }): U => ({
            toolCalls: [{ id: `${agent}-${call}`, tool: 'x' }],
            driverSessions: { [agent]: { driver: `${agent}-${call}` } },
            completedSteps: [step],
            tokenMetrics: tokens(agent, input, 1),
          }),
        ),
        { maxLength: 6 },
      );
    fc.assert(
      fc.property(writer('dev'), writer('rev'), fc.array(fc.boolean(), { minLength: 12, maxLength: 12 }), fc.boolean(), (dev, rev, picks, together) => {
        // One order: dev's updates first, then rev's, each a step.
        const a = session();
        for (const u of [...dev, ...rev]) a.dispatch(Execution.update(u));
        // Another: interleaved as `picks` says, or paired into one step each (updateMany).
        const b = session();
        const d = [...dev];
        const r = [...rev];
        for (const pick of picks) {
          if (together && d.length > 0 && r.length > 0) b.dispatch(Execution.updateMany([d.shift() as U, r.shift() as U]));
          else if ((pick && d.length > 0) || r.length === 0) d.length > 0 && b.dispatch(Execution.update(d.shift() as U));
          else b.dispatch(Execution.update(r.shift() as U));
        }
        for (const u of [...d, ...r]) b.dispatch(Execution.update(u));
        const x = a.slice(Execution).latest()!;
        const y = b.slice(Execution).latest()!;
        const sorted = (xs: readonly { id: string }[]) => xs.map((c) => c.id).sort();
        expect(sorted(y.toolCalls)).toEqual(sorted(x.toolCalls));
        expect(y.tokenMetrics).toEqual(x.tokenMetrics);
        expect([...y.completedSteps].sort()).toEqual([...x.completedSteps].sort());
        expect(Object.keys(y.driverSessions).sort()).toEqual(Object.keys(x.driverSessions).sort());
        expect(x.toolCalls).toHaveLength(dev.length + rev.length);
      }),
      { numRuns: 200 },
    );
  });
});
