// Per-instance effect options (issue 24, item 5): `Fx(payload, { retry, timeoutMs })` runs with its
// own retry and timeout, falling back to the effect type's (defineEffect options) for what it leaves out.
import { map } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createSession, defineEffect, defineEvent, defineSlice, handleEffect, none, RetryPolicy, runEffect, withEffects, type Effect } from '../src/index';
import { dispatchFrom } from '../src/testing/index';
import { lifecycle$ } from '../test/effects/fixtures';

let scheduler: TestScheduler;
beforeEach(() => {
  scheduler = new TestScheduler((actual, expected) => expect(actual).toEqual(expected));
});

/** The effect type's own options: one retry 10 ms after a failure, 100 ms per attempt. */
const Charge = defineEffect('shop/charge', z.object({ order: z.number() }), {
  retry: RetryPolicy.fixed(10, 1),
  timeoutMs: 100,
});

const Ordered = defineEvent('shop/ordered', z.object({ order: z.number(), urgent: z.boolean() }));

/** The reducer makes each effect instance: an urgent order retries fast and gives up early. */
const Orders = defineSlice('orders', {
  policy: 'log',
  reducers: ({ on }) => [
    on(Ordered, (_view, e) =>
      withEffects(none(), [
        e.payload.urgent
          ? Charge({ order: e.payload.order }, { retry: RetryPolicy.exponential({ maxAttempts: 3, initialDelayMs: 2, factor: 2 }), timeoutMs: 4 })
          : Charge({ order: e.payload.order }),
      ]),
    ),
  ],
});

function shop() {
  const session = createSession({ slices: [Orders], scheduler });
  return session;
}

describe('per-instance effect options in virtual time', () => {
  it("an instance's own retry replaces the type's: exponential 2, 4 ms instead of one retry after 10 ms", () => {
    scheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
      const session = shop();
      const charge$ = cold('-#', undefined, new Error('card declined'));
      handleEffect(session, Charge, () => charge$);
      expectObservable(lifecycle$(session)).toBe('ab 1ms cd 3ms ef', {
        a: 'started shop/charge 1',
        b: 'retrying shop/charge 2 in 2',
        c: 'started shop/charge 2',
        d: 'retrying shop/charge 3 in 4',
        e: 'started shop/charge 3',
        f: 'failed shop/charge after 3',
      });
      dispatchFrom(session, cold('o', { o: Ordered({ order: 1, urgent: true }) })).subscribe();
      expectSubscriptions(charge$.subscriptions).toBe(['^!', '3ms ^!', '8ms ^!']);
    });
  });

  it("an instance's own timeoutMs replaces the type's: each attempt is cut at 4 ms, not 100", () => {
    scheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
      const session = shop();
      const slow$ = cold('------v|', { v: 'ok' });
      handleEffect(session, Charge, () => slow$);
      // attempt 1 at 0 times out at 4; +2 → attempt 2 at 6 times out at 10; +4 → attempt 3 at 14 times out at 18
      expectObservable(session.errors$.pipe(map((e) => `${e.code} ${(e.cause as { code?: string }).code}`))).toBe('18ms x', { x: 'EFFECT_FAILED EFFECT_TIMEOUT' });
      dispatchFrom(session, cold('o', { o: Ordered({ order: 2, urgent: true }) })).subscribe();
      expectSubscriptions(slow$.subscriptions).toBe(['^---!', '6ms ^---!', '14ms ^---!']);
    });
  });

  it("an instance without options runs with the type's retry and timeout, side by side with one that has its own", () => {
    scheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
      const session = shop();
      const slow$ = cold('------v|', { v: 'ok' });
      const seen: string[] = [];
      handleEffect(session, Charge, (effect) => {
        seen.push(`${effect.payload.order} ${JSON.stringify(effect.options ?? null)}`);
        return slow$;
      });
      // order 1 (type's options): succeeds at 7, within 100 ms. order 2 (its own): 3 attempts cut at 4 ms.
      expectObservable(session.errors$.pipe(map((e) => e.code))).toBe('18ms x', { x: 'EFFECT_FAILED' });
      dispatchFrom(session, cold('(ou)', { o: Ordered({ order: 1, urgent: false }), u: Ordered({ order: 2, urgent: true }) })).subscribe();
      expectSubscriptions(slow$.subscriptions).toBe(['^------!', '^---!', '6ms ^---!', '14ms ^---!']);
      scheduler.flush();
      expect(seen[0]).toBe('1 null');
      expect(seen[1]).toBe('2 {"retry":{"kind":"exponential","maxAttempts":3,"initialDelayMs":2,"factor":2,"maxDelayMs":200,"jitter":"none"},"timeoutMs":4}');
    });
  });

  it("an instance giving only timeoutMs keeps the type's retry (one retry after 10 ms)", () => {
    scheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
      const session = createSession({ slices: [], scheduler });
      const slow$ = cold('------v|', { v: 'ok' });
      handleEffect(session, Charge, () => slow$);
      expectObservable(lifecycle$(session)).toBe('a 2ms b 9ms c 2ms d', {
        a: 'started shop/charge 1',
        b: 'retrying shop/charge 2 in 10',
        c: 'started shop/charge 2',
        d: 'failed shop/charge after 2',
      });
      cold('r').subscribe(() => runEffect(session, Charge({ order: 3 }, { timeoutMs: 3 })).subscribe({ error: () => undefined }));
      expectSubscriptions(slow$.subscriptions).toBe(['^--!', '13ms ^--!']);
    });
  });

  it('runs an effect read back from JSON exactly as the one the creator made (effects stay plain data)', () => {
    scheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
      const session = createSession({ slices: [], scheduler });
      const charge$ = cold('-#', undefined, new Error('busy'));
      handleEffect(session, Charge, () => charge$);
      const made = Charge({ order: 4 }, { retry: RetryPolicy.fixed(3, 2) });
      const copy = JSON.parse(JSON.stringify(made)) as Effect;
      expect(copy).toEqual(made);
      expectObservable(lifecycle$(session)).toBe('ab 2ms cd 2ms ef', {
        a: 'started shop/charge 1',
        b: 'retrying shop/charge 2 in 3',
        c: 'started shop/charge 2',
        d: 'retrying shop/charge 3 in 3',
        e: 'started shop/charge 3',
        f: 'failed shop/charge after 3',
      });
      cold('r').subscribe(() => runEffect(session, copy).subscribe({ error: () => undefined }));
      expectSubscriptions(charge$.subscriptions).toBe(['^!', '4ms ^!', '8ms ^!']);
    });
  });

  it('fails a hand-made effect whose options are invalid at stage validation, without calling the handler', () => {
    scheduler.run(({ cold, expectObservable }) => {
      const session = createSession({ slices: [], scheduler });
      let calls = 0;
      handleEffect(session, Charge, () => {
        calls++;
        return cold('v|', { v: 'ok' });
      });
      const forged = { type: 'shop/charge', payload: { order: 5 }, options: { retry: { kind: 'forever' } } } as unknown as Effect;
      expectObservable(session.errors$.pipe(map((e) => `${e.code} ${(e as { stage?: string }).stage} ${(e.cause as { code?: string }).code}`))).toBe('x', {
        x: 'EFFECT_FAILED validation INVALID_EFFECT_OPTIONS',
      });
      expectObservable(lifecycle$(session)).toBe('f', { f: 'failed shop/charge after 0' });
      cold('r').subscribe(() => runEffect(session, forged).subscribe({ error: () => undefined }));
      scheduler.flush();
      expect(calls).toBe(0);
    });
  });
});
