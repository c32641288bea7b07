import { map } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { beforeEach, describe, expect, it } from 'vitest';
import { cancel, createMachineActor, defineMachine, send } from '../src/machines/index.js';

const Fetch = defineMachine('fetch', {
  states: {
    idle: { on: { 'fetch/started': 'loading' } },
    loading: {
      entry: send('fetch/timedOut', { delayMs: 30, id: 'timeout' }),
      exit: cancel('timeout'),
      on: { 'fetch/succeeded': 'done', 'fetch/timedOut': 'timedOut' },
    },
    done: {},
    timedOut: {},
  },
});

let scheduler: TestScheduler;
beforeEach(() => {
  scheduler = new TestScheduler((actual, expected) => expect(actual).toEqual(expected));
});

describe('delayed send in virtual time', () => {
  it('fires the delayed event 30 ms after entry', () => {
    scheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
      const actor = createMachineActor(Fetch, { scheduler }).start();
      const input = cold('5ms a', { a: 'fetch/started' as const });
      scheduler.schedule(() => input.subscribe((e) => actor.send(e)));
      expectObservable(actor.snapshot$.pipe(map((s) => s.basicConfiguration[0]))).toBe('i 4ms l 29ms t 64ms |', { i: 'idle', l: 'loading', t: 'timedOut' });
      expectSubscriptions(input.subscriptions).toBe('^');
      scheduler.schedule(() => actor.dispose(), 100);
    });
  });

  it('cancels the delayed event when the state is left first (exit: cancel)', () => {
    scheduler.run(({ cold, expectObservable }) => {
      const actor = createMachineActor(Fetch, { scheduler }).start();
      const input = cold('5ms a 9ms b', { a: 'fetch/started' as const, b: 'fetch/succeeded' as const });
      scheduler.schedule(() => input.subscribe((e) => actor.send(e)));
      expectObservable(actor.snapshot$.pipe(map((s) => `${s.basicConfiguration[0]}:${s.delayed.length}`))).toBe('i 4ms l 9ms d 84ms |', {
        i: 'idle:0',
        l: 'loading:1',
        d: 'done:0',
      });
      scheduler.schedule(() => actor.dispose(), 100);
    });
  });

  it('re-arms pending sends from a restored snapshot at their absolute due time', () => {
    scheduler.run(({ expectObservable }) => {
      const first = createMachineActor(Fetch, { scheduler }).start();
      first.send('fetch/started'); // at 0 ms: timeout due at 30 ms
      const saved = JSON.parse(JSON.stringify(first.snapshot()));
      first.dispose();
      const second = createMachineActor(Fetch, { scheduler, snapshot: saved });
      scheduler.schedule(() => second.start(), 10);
      expectObservable(second.snapshot$.pipe(map((s) => s.basicConfiguration[0]))).toBe('l 29ms t 69ms |', { l: 'loading', t: 'timedOut' });
      scheduler.schedule(() => second.dispose(), 100);
    });
  });
});
