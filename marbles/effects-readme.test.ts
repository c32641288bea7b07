// The marble example of the guide's "Effects and epics" section (docs/guide/effects-and-sagas.md, moved there from the README), verified word for word:
// the last test fails when the two drift apart.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { filter, map } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { beforeEach, expect, it } from 'vitest';
import { z } from 'zod';
import { defineEffect } from '../src/effects/define-effect';
import { RetryPolicy } from '../src/effects/retry-policy';
import { append, createSession, defineEvent, defineSlice, withEffects } from '../src/index';

const OrderPlaced = defineEvent('order/placed', z.object({ orderId: z.string(), amountCents: z.number() }));
const OrderPaid = defineEvent('order/paid', z.object({ orderId: z.string(), chargeId: z.string() }));
const OrderCancelled = defineEvent('order/cancelled', z.object({ orderId: z.string(), reason: z.string() }));

const ChargeCard = defineEffect('payment/charge', z.object({ orderId: z.string(), amountCents: z.number() }), {
  retry: RetryPolicy.exponential({ maxAttempts: 3, initialDelayMs: 10, factor: 2 }),
  timeoutMs: 1_000,
  concurrency: 'merge',
  onSuccess: (effect, chargeId: string) => OrderPaid({ orderId: effect.payload.orderId, chargeId }),
  compensate: (effect, error) => OrderCancelled({ orderId: effect.payload.orderId, reason: String(error) }),
});

const Orders = defineSlice('orders', {
  policy: 'log',
  reducers: ({ on }) => [on(OrderPlaced, (_view, e) => withEffects(append(e.payload), [ChargeCard(e.payload)]))],
});

// The README's copy creates its scheduler inside the test; everything else is the same.
let scheduler: TestScheduler;
beforeEach(() => {
  scheduler = new TestScheduler((actual, expected) => expect(actual).toEqual(expected));
});

it('charges the card, retrying 10 then 20 ms after each failure, and marks the order paid', () => {
  scheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
    const session = createSession({ slices: [Orders], events: [OrderPaid, OrderCancelled], scheduler });
    const declined$ = cold<string>('-#', undefined, new Error('gateway busy'));
    const charged$ = cold('--c|', { c: 'ch_1' });
    session.handle(ChargeCard, (_effect, { attempt }) => (attempt < 3 ? declined$ : charged$));

    const orderEvents$ = session.committed$.pipe(
      map((c) => c.event),
      filter((e) => e.type.startsWith('order/')),
    );
    expectObservable(orderEvents$).toBe('p 34ms d', {
      p: OrderPlaced({ orderId: 'o1', amountCents: 500 }),
      d: OrderPaid({ orderId: 'o1', chargeId: 'ch_1' }),
    });
    scheduler.schedule(() => session.dispatch(OrderPlaced({ orderId: 'o1', amountCents: 500 })), 0);

    expectSubscriptions(declined$.subscriptions).toBe(['^!', '11ms ^!']);
    expectSubscriptions(charged$.subscriptions).toBe('32ms ^--!');
  });
});

it("is the README's marble example, line for line (comments and the scheduler line aside)", () => {
  const normalize = (code: string) =>
    code
      .slice(code.indexOf("it('charges the card"))
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l !== '' && !l.startsWith('//') && !l.startsWith('const scheduler = new TestScheduler'));
  const readme = readFileSync(join(__dirname, '..', 'docs', 'guide', 'effects-and-sagas.md'), 'utf8');
  const section = readme.slice(readme.indexOf('### Testing a workflow in virtual time'));
  const block = /```ts\n([\s\S]*?)```/.exec(section)?.[1] ?? '';
  const self = readFileSync(__filename, 'utf8');
  const ownTest = self.slice(0, self.indexOf('it("is the README'));
  expect(normalize(block)).toEqual(normalize(ownTest));
});
