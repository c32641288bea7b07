import { describe, expect, it } from 'vitest';
import { map } from 'rxjs';
import { createSession, defineComputed, SubscriberError, type RxSliceError } from '../../src/index';
import { Counter, CounterBumped } from '../fixtures';

/**
 * Subscribers given as callbacks attach to a slice's or computed slice's source directly (no RxJS
 * Subscriber in between); they must behave as RxJS subscribers of a BehaviorSubject do.
 */
describe('slice and computed observables: callback subscribers', () => {
  it('replay the current value, then get each change; one unsubscribed during an emission gets nothing more', () => {
    const s = createSession({ slices: [Counter] });
    const seen: string[] = [];
    const second = { sub: undefined as { unsubscribe(): void } | undefined };
    s.slice(Counter).latest$.subscribe((c) => {
      seen.push(`first ${c?.n}`);
      if (c?.n === 1) second.sub?.unsubscribe();
    });
    second.sub = s.slice(Counter).latest$.subscribe((c) => seen.push(`second ${c?.n}`));
    s.dispatch(CounterBumped({ by: 1 }));
    s.dispatch(CounterBumped({ by: 1 }));
    expect(seen).toEqual(['first 0', 'second 0', 'first 1', 'first 2']);
  });

  it('report a throwing callback on errors$ and keep the subscriber; observer objects keep their this', () => {
    const s = createSession({ slices: [Counter] });
    const errors: RxSliceError[] = [];
    s.errors$.subscribe((e) => errors.push(e));
    const values: number[] = [];
    s.slice(Counter).latest$.subscribe((c) => {
      if (c?.n === 1) throw new Error('boom');
    });
    const observer = {
      seen: values,
      next(this: { seen: number[] }, c: { n: number } | undefined) {
        this.seen.push(c?.n ?? -1);
      },
    };
    s.slice(Counter).latest$.subscribe(observer);
    s.dispatch(CounterBumped({ by: 1 }));
    s.dispatch(CounterBumped({ by: 1 }));
    expect(values).toEqual([0, 1, 2]);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toBeInstanceOf(SubscriberError);
  });

  it('complete on dispose (the subscription is closed then), and complete at once when subscribed after', () => {
    const Doubled = defineComputed('doubled', [Counter], (items) => (items[0]?.n ?? 0) * 2);
    const s = createSession({ slices: [Counter] });
    const log: string[] = [];
    const sub = s.slice(Counter).all$.subscribe({ next: (items) => log.push(`all ${items.length}`), complete: () => log.push('all done') });
    const value = s.computed(Doubled).value$.subscribe({ next: (v) => log.push(`doubled ${v}`), complete: () => log.push('doubled done') });
    const piped: number[] = [];
    s.computed(Doubled)
      .value$.pipe(map((v) => v + 1))
      .subscribe((v) => piped.push(v));
    s.dispatch(CounterBumped({ by: 2 }));
    s.dispose();
    expect(sub.closed).toBe(true);
    expect(value.closed).toBe(true);
    expect(log).toEqual(['all 1', 'doubled 0', 'all 1', 'doubled 4', 'doubled done', 'all done']);
    expect(piped).toEqual([1, 5]);
    const late: string[] = [];
    const after = s.slice(Counter).all$.subscribe({ next: () => late.push('next'), complete: () => late.push('complete') });
    expect(late).toEqual(['complete']);
    expect(after.closed).toBe(true);
  });
});
