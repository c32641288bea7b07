import { describe, expect, it } from 'vitest';
import { defineMachine, toMermaid } from '../../src/machines/index.js';

describe('toMermaid', () => {
  it('renders nesting, parallel regions, history, guards, initial and final states', () => {
    const m = defineMachine('m', {
      context: { ready: true },
      states: {
        idle: { on: { 'job/started': { target: 'work', guard: function isReady({ context }) { return context.ready; } } } },
        work: {
          type: 'parallel',
          states: {
            fetch: { states: { f1: { on: { next: 'f2' } }, f2: { type: 'final' } } },
            log: { states: { l1: {}, 'l-2': {} } },
          },
          on: { 'job/aborted': 'idle' },
        },
        paused: { states: { h: { type: 'history', history: 'deep' }, p1: {} } },
      },
    });
    expect(toMermaid(m)).toBe(
      [
        'stateDiagram-v2',
        '  [*] --> idle',
        '  idle',
        '  state work {',
        '    state fetch {',
        '      [*] --> f1',
        '      f1',
        '      f2',
        '      f2 --> [*]',
        '    }',
        '    --',
        '    state log {',
        '      [*] --> l1',
        '      l1',
        '      state "l-2" as l_2',
        '    }',
        '  }',
        '  state paused {',
        '    [*] --> p1',
        '    state "H*" as h',
        '    p1',
        '  }',
        '  h --> p1',
        '  idle --> work : job/started [isReady]',
        '  work --> idle : job/aborted',
        '  f1 --> f2 : next',
      ].join('\n'),
    );
  });

  it('lists targetless transitions in a note beside their state, never as a self-loop (SCXML 3.13)', () => {
    const m = defineMachine('t', {
      context: { n: 0 },
      states: {
        run: {
          states: {
            step: {
              on: {
                tick: { actions: [] },
                poke: { guard: function isEndNote() { return true; }, guardLabel: 'end note', actions: [] },
                again: 'step',
              },
            },
          },
          on: { 'run/noted': { actions: [] } },
        },
      },
    });
    expect(toMermaid(m)).toBe(
      [
        'stateDiagram-v2',
        '  [*] --> run',
        '  state run {',
        '    [*] --> step',
        '    step',
        '    note right of step',
        '      targetless: tick',
        '      targetless: poke [end_note]',
        '    end note',
        '  }',
        '  note right of run',
        '    targetless: run/noted',
        '  end note',
        // an external self-transition is still an arrow: it exits and re-enters the state
        '  step --> step : again',
      ].join('\n'),
    );
  });
});
