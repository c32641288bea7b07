import { map } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineEffect } from '../src/effects/define-effect';
import { RetryPolicy } from '../src/effects/retry-policy';
import { dispatchFrom } from '../src/testing/index';
import { effectSession, lifecycle$, request } from '../test/effects/fixtures';

let scheduler: TestScheduler;
beforeEach(() => {
  scheduler = new TestScheduler((actual, expected) => expect(actual).toEqual(expected));
});

describe('effect retries in virtual time', () => {
  it('retries with exponential backoff at exactly 10, 20 and 40 ms after each failure', () => {
    const Save = defineEffect('store/save', z.object({ id: z.number() }), {
      retry: RetryPolicy.exponential({ maxAttempts: 4, initialDelayMs: 10, factor: 2 }),
    });
    scheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
      const { session, fx } = effectSession(scheduler);
      const save$ = cold('-#', undefined, new Error('store down'));
      fx.handle(Save, () => save$);
      expectObservable(lifecycle$(session)).toBe('a b 9ms c d 19ms e f 39ms g h', {
        a: 'started store/save 1',
        b: 'retrying store/save 2 in 10',
        c: 'started store/save 2',
        d: 'retrying store/save 3 in 20',
        e: 'started store/save 3',
        f: 'retrying store/save 4 in 40',
        g: 'started store/save 4',
        h: 'failed store/save after 4',
      });
      expectObservable(session.errors$.pipe(map((e) => e.code))).toBe('74ms x', { x: 'EFFECT_FAILED' });
      dispatchFrom(session, cold('r', { r: request(Save({ id: 1 })) })).subscribe();
      expectSubscriptions(save$.subscriptions).toBe(['^!', '11ms ^!', '32ms ^!', '73ms ^!']);
    });
  });
});
