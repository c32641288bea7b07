import { describe, expect, it } from 'vitest';
import {
  advanceTime,
  defineMachine,
  eventMatches,
  initialTransition,
  InvalidMachineError,
  send,
  transition,
} from '../../src/machines/index.js';

describe('eventMatches (SCXML 3.12.1 event descriptors)', () => {
  it('matches exact names, token prefixes and *, never a partial token', () => {
    expect(eventMatches(['error'], 'error')).toBe(true);
    expect(eventMatches(['error'], 'error.send.failed')).toBe(true);
    expect(eventMatches(['error.send'], 'error.execution')).toBe(false);
    expect(eventMatches(['error'], 'errors')).toBe(false);
    expect(eventMatches(['a', 'b.c'], 'b.c.d')).toBe(true);
    expect(eventMatches(['*'], 'anything.at.all')).toBe(true);
    expect(eventMatches([], 'x')).toBe(false);
  });
});

describe('advanceTime (pure delayed sends)', () => {
  const Agent = defineMachine('agent', {
    initial: 'working',
    states: {
      working: {
        entry: [send('agent/timedOut', { delayMs: 1000, id: 'timeout' }), send('agent/nudged', { delayMs: 400, id: 'nudge' })],
        on: { 'agent/timedOut': 'timedOut', 'agent/nudged': 'nudged' },
      },
      nudged: { on: { 'agent/timedOut': 'timedOut' } },
      timedOut: { type: 'final' },
    },
  });

  it('fires nothing before the due time, then each due send in due order as its own macrostep', () => {
    const start = initialTransition(Agent, { nowMs: 0 }).snapshot;
    expect(start.delayed.map((d) => [d.sendId, d.dueAtMs])).toEqual([
      ['nudge', 400],
      ['timeout', 1000],
    ]);
    expect(advanceTime(Agent, start, 399).snapshot.configuration).toEqual(['working']);
    const at400 = advanceTime(Agent, start, 400).snapshot;
    expect(at400.configuration).toEqual(['nudged']);
    expect(at400.delayed.map((d) => d.sendId)).toEqual(['timeout']);
    const at1000 = advanceTime(Agent, start, 1000).snapshot; // both due: nudge first, then timeout
    expect(at1000.configuration).toEqual(['timedOut']);
    expect(at1000.done).toBe(true);
    expect(at1000.delayed).toEqual([]);
  });

  it('is pure: the input snapshot is not changed', () => {
    const start = initialTransition(Agent, { nowMs: 0 }).snapshot;
    const copy = JSON.parse(JSON.stringify(start));
    advanceTime(Agent, start, 5000);
    transition(Agent, start, 'agent/nudged');
    expect(start).toEqual(copy);
  });
});

describe('InvalidMachineError', () => {
  it('rejects an unknown initial state or target when the machine is defined, saying which', () => {
    const unknownInitial = () => defineMachine('m', { initial: 'x', states: { a: {} } } as never);
    expect(unknownInitial).toThrow(InvalidMachineError);
    expect(unknownInitial).toThrow(/Machine "m".*"x"/);
    const unknownTarget = () => defineMachine('m', { states: { a: { on: { go: 'nowhere' } } } } as never);
    expect(unknownTarget).toThrow(InvalidMachineError);
    expect(unknownTarget).toThrow(/nowhere/);
    try {
      unknownTarget();
    } catch (e) {
      expect((e as InvalidMachineError).code).toBe('INVALID_MACHINE');
      expect((e as InvalidMachineError).machine).toBe('m');
    }
  });
});
