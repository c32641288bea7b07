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
});
