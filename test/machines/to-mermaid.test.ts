import { describe, expect, it } from 'vitest';
import { defineMachine, targetlessTransitions, toMermaid } from '../../src/machines/index.js';

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
        '    [*] --> idle',
        // idle is placed by its arrows at the top level: no declaration line
        '    state work {',
        '        state fetch {',
        '            [*] --> f1',
        '            f1',
        '            f2',
        '            f2 --> [*]',
        '        }',
        '        --',
        '        state log {',
        '            [*] --> l1',
        '            l1',
        '            state "l-2" as l_2',
        '        }',
        '    }',
        '    state paused {',
        '        [*] --> p1',
        '        state "H*" as h',
        '        p1',
        '    }',
        '    h --> p1',
        '    idle --> work: job/started [isReady]',
        '    work --> idle: job/aborted',
        '    f1 --> f2: next',
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
        '    [*] --> run',
        '    state run {',
        '        [*] --> step',
        '        step',
        '        note right of step',
        '            targetless: tick',
        '            targetless: poke [end_note]',
        '        end note',
        '    }',
        '    note right of run',
        '        targetless: run/noted',
        '    end note',
        // an external self-transition is still an arrow: it exits and re-enters the state
        '    step --> step: again',
      ].join('\n'),
    );
  });

  it("targetless: 'omit' leaves the notes out, and targetlessTransitions lists them for a viewer that shows them itself", () => {
    const m = defineMachine('t', {
      context: { n: 0 },
      states: {
        run: {
          states: { step: { on: { tick: { actions: [] }, poke: { guard: function isReady() { return true; }, actions: [] }, again: 'step' } } },
          on: { 'run/noted': { actions: [] } },
        },
      },
    });
    expect(toMermaid(m, { targetless: 'omit' })).toBe(
      ['stateDiagram-v2', '    [*] --> run', '    state run {', '        [*] --> step', '        step', '    }', '    step --> step: again'].join('\n'),
    );
    expect(targetlessTransitions(m)).toEqual([
      { state: 'run', label: 'run/noted' },
      { state: 'step', label: 'tick' },
      { state: 'step', label: 'poke [isReady]' },
    ]);
    // @ts-expect-error -- not an option: a clear error at run time too
    expect(() => toMermaid(m, { targetless: 'notes' })).toThrow(/options\.targetless must be 'note' or 'omit', got "notes"/);
  });

  it('labels a named transition with its name, draws arrows in written order and final arrows last', () => {
    const m = defineMachine('named', {
      initial: 'a',
      states: {
        a: { on: { go: { name: 'go_on', target: 'b' } } },
        b: { on: { back: 'a', finish: { name: 'finish', target: 'end', guard: function ready() { return true; } } } },
        lonely: {},
        end: { type: 'final' },
      },
      transitions: [{ name: 'reset', event: 'reset', from: ['b', 'a'], target: 'a' }],
    });
    expect(toMermaid(m)).toBe(
      [
        'stateDiagram-v2',
        '    [*] --> a',
        // no arrow names it: declared so that it is drawn
        '    lonely',
        '    a --> b: go_on',
        '    b --> a: back',
        '    b --> end: finish [ready]',
        // one arrow per source, in `from` order, after the states' own transitions
        '    b --> a: reset',
        '    a --> a: reset',
        '    end --> [*]',
      ].join('\n'),
    );
  });
});
