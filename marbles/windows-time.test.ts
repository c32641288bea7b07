import { map, skip } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { beforeEach, describe, expect, it } from 'vitest';
import { createSession } from '../src/index';
import { dispatchFrom } from '../src/testing/index';
import { SliceWindow } from '../src/windows/slice-window';
import { EvictionPolicy } from '../src/windows/eviction-policy';
import { call, CallFinished, callsSlice, type Call } from '../test/windows/window-fixtures';

let scheduler: TestScheduler;
beforeEach(() => {
  scheduler = new TestScheduler((actual, expected) => expect(actual).toEqual(expected));
});

const names = (calls: readonly Call[]): string => calls.map((c) => String.fromCharCode(96 + c.id)).join(',');
const events = { a: CallFinished(call(1)), b: CallFinished(call(2)), c: CallFinished(call(3)), d: CallFinished(call(4)), e: CallFinished(call(5)) };

describe('time windows in virtual time', () => {
  it('evicts items older than maxAgeMs (by envelope time) when the slice next changes', () => {
    scheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
      const Calls = callsSlice(SliceWindow.time({ maxAgeMs: 10 }));
      const session = createSession({ slices: [Calls], scheduler });
      const source = cold('a 4ms b 6ms c 7ms d 19ms e|', events);
      // a@0 b@5 c@12 (a is 12ms old) d@20 (b is 15ms old; c is 8ms old) e@40 (c and d are too old)
      expectObservable(session.slice(Calls).all$.pipe(map(names))).toBe('(xa) 1ms b 6ms c 7ms d 19ms e', {
        x: '',
        a: 'a',
        b: 'a,b',
        c: 'b,c',
        d: 'c,d',
        e: 'e',
      });
      expectObservable(session.evicted$.pipe(map((e) => `${e.seq}:${names(e.items as Call[])}`))).toBe('12ms x 7ms y 19ms z', {
        x: '3:a',
        y: '4:b',
        z: '5:c,d',
      });
      dispatchFrom(session, source).subscribe();
      expectSubscriptions(source.subscriptions).toBe('^ 40ms !');
    });
  });

  it('keeps an item exactly maxAgeMs old, and composes with a count window', () => {
    scheduler.run(({ cold, expectObservable }) => {
      const Calls = callsSlice(SliceWindow.composite(SliceWindow.time({ maxAgeMs: 10 }), SliceWindow.count(2, { eviction: EvictionPolicy.fifo() })));
      const session = createSession({ slices: [Calls], scheduler });
      // a@0 b@1 c@2 (count evicts a) d@12 (b is 11ms old: time evicts it; c is exactly 10ms old and stays)
      // skip(1): the empty slice emitted on subscribe
      expectObservable(session.slice(Calls).all$.pipe(skip(1), map(names))).toBe('abc 9ms d', { a: 'a', b: 'a,b', c: 'b,c', d: 'c,d' });
      dispatchFrom(session, cold('abc 9ms d', events)).subscribe();
    });
  });
});
