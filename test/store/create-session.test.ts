import { map, of } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  append,
  createSession,
  defineComputed,
  defineEffect,
  defineEvent,
  defineMachine,
  defineSlice,
  ofType,
  withEffects,
  type Epic,
} from '../../src/index';

const Ordered = defineEvent('shop/ordered', z.object({ id: z.number() }));
const Shipped = defineEvent('shop/shipped', z.object({ id: z.number() }));
const Ship = defineEffect('shop/ship', z.object({ id: z.number() }));
const Orders = defineSlice<{ id: number; shipped: boolean }>('orders', {
  policy: 'log',
  reducers: ({ on }) => [
    on(Ordered, (_v, e) => withEffects(append({ id: e.payload.id, shipped: false }), [Ship({ id: e.payload.id })])),
    on(Shipped, (_v, e) => append({ id: e.payload.id, shipped: true })),
  ],
});
const ShippedCount = defineComputed('shippedCount', [Orders], (orders) => orders.filter((o) => o.shipped).length);

describe('createSession: every layer on one session', () => {
  it('runs effect handlers, epics with dependencies, computed slices and machines', () => {
    const audit: string[] = [];
    const auditEpic: Epic<{ log: (s: string) => void }> = (events$, _state, deps) =>
      events$.pipe(
        ofType(Shipped),
        map((env) => {
          deps.log(`shipped ${env.event.payload.id}`);
          return { type: 'audit/recorded', payload: env.event.payload.id };
        }),
      );
    const session = createSession({ slices: [Orders], epics: [auditEpic], dependencies: { log: (s: string) => audit.push(s) } });
    session.handle(Ship, (effect) => of(effect.payload.id));
    session.run((events$) => events$.pipe(ofType(Ordered), map((env) => Shipped({ id: env.event.payload.id }))));
    const requested: unknown[] = [];
    session.effects$.subscribe((e) => requested.push(e.type));
    const count = session.computed(ShippedCount);
    const phase = session.install(
      defineMachine('shop', { initial: 'open', states: { open: { on: { 'shop/closed': 'closed' } }, closed: { type: 'final' } } }),
    );

    session.dispatch(Ordered({ id: 1 }));
    expect(count.latest()).toBe(1);
    expect(audit).toEqual(['shipped 1']);
    expect(requested).toEqual(['shop/ship']);
    session.dispatch({ type: 'shop/closed', payload: undefined });
    expect(phase.matches('closed')).toBe(true);
    expect(session.machine(phase.definition)).toBe(phase);
    const types: string[] = [];
    session.runEffect(Ship({ id: 9 })).subscribe((v) => types.push(String(v)));
    expect(types).toEqual(['9']);
  });
});
