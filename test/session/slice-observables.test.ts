import { config } from 'rxjs';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createSession } from '../../src/index';
import { Counter, CounterBumped, NoteAdded, Notes } from '../fixtures';

const make = () => createSession({ slices: [Counter, Notes] });

describe('slice observables (all$, latest$)', () => {
  afterEach(() => {
    config.onUnhandledError = null;
  });

  it('replay on subscribe, then emit once per change, in subscription order', () => {
    const s = make();
    const seen: string[] = [];
    s.slice(Counter).latest$.subscribe((c) => seen.push(`a${c?.n}`));
    s.slice(Counter).latest$.subscribe((c) => seen.push(`b${c?.n}`));
    s.dispatch(CounterBumped({ by: 2 }));
    expect(seen).toEqual(['a0', 'b0', 'a2', 'b2']);
  });

  it('a subscriber added during an emission replays the new value and does not get that emission twice', () => {
    const s = make();
    const late: number[] = [];
    let joined = false;
    s.slice(Counter).latest$.subscribe((c) => {
      if (c?.n === 1 && !joined) {
        joined = true;
        s.slice(Counter).latest$.subscribe((d) => late.push(d?.n ?? -1));
      }
    });
    s.dispatch(CounterBumped({ by: 1 }));
    s.dispatch(CounterBumped({ by: 1 }));
    expect(late).toEqual([1, 2]);
  });

  it('a subscriber unsubscribed during an emission gets nothing more', () => {
    const s = make();
    const second: number[] = [];
    let sub2: { unsubscribe(): void } | undefined;
    s.slice(Counter).latest$.subscribe((c) => {
      if (c?.n === 1) sub2?.unsubscribe();
    });
    sub2 = s.slice(Counter).latest$.subscribe((c) => second.push(c?.n ?? -1));
    s.dispatch(CounterBumped({ by: 1 }));
    s.dispatch(CounterBumped({ by: 1 }));
    expect(second).toEqual([0]);
  });

  it('a throwing subscriber is reported as unhandled and the others still get the value', async () => {
    const reported: unknown[] = [];
    config.onUnhandledError = (e) => reported.push(e);
    const s = make();
    const others: number[] = [];
    s.slice(Counter).latest$.subscribe((c) => {
      if (c?.n === 1) throw new Error('subscriber bug');
    });
    s.slice(Counter).latest$.subscribe((c) => others.push(c?.n ?? -1));
    s.dispatch(CounterBumped({ by: 1 }));
    expect(others).toEqual([0, 1]);
    await vi.waitFor(() => expect(reported).toHaveLength(1));
    expect((reported[0] as Error).message).toBe('subscriber bug');
    s.dispatch(CounterBumped({ by: 1 }));
    expect(others).toEqual([0, 1, 2]);
  });

  it('inside a batch, a new subscriber replays what the others saw, and everyone gets one emission after it', () => {
    const s = make();
    const a: number[] = [];
    const b: number[] = [];
    s.slice(Notes).all$.subscribe((items) => a.push(items.length));
    s.batch(() => {
      s.dispatch(NoteAdded({ id: 1, text: 'x' }));
      s.slice(Notes).all$.subscribe((items) => b.push(items.length));
      s.dispatch(NoteAdded({ id: 2, text: 'y' }));
    });
    expect(a).toEqual([0, 2]);
    expect(b).toEqual([0, 2]);
  });

  it('complete on dispose; subscribing afterwards completes at once without a value', () => {
    const s = make();
    const events: string[] = [];
    s.slice(Counter).latest$.subscribe({ next: () => events.push('next'), complete: () => events.push('complete') });
    s.dispose();
    expect(events).toEqual(['next', 'complete']);
    const after: string[] = [];
    s.slice(Counter).latest$.subscribe({ next: () => after.push('next'), complete: () => after.push('complete') });
    expect(after).toEqual(['complete']);
  });
});
