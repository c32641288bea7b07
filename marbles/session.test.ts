import { debounceTime, map, skip } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { beforeEach, describe, expect, it } from 'vitest';
import { createSession, type Envelope } from '../src/index';
import { committedEvents, createMarbleSession, dispatchFrom } from '../src/testing/index';
import { Counter, CounterBumped, NoteAdded, Notes } from '../test/fixtures';

let scheduler: TestScheduler;
beforeEach(() => {
  scheduler = new TestScheduler((actual, expected) => expect(actual).toEqual(expected));
});

describe('session workflows in virtual time', () => {
  it('stamps envelopes with the session scheduler time', () => {
    scheduler.run(({ cold, expectObservable }) => {
      const session = createMarbleSession(scheduler, { slices: [Counter, Notes] });
      const times$ = session.committed$.pipe(map((c) => `${c.seq}@${c.at}`));
      expectObservable(times$).toBe('a 4ms b 9ms c', { a: '1@0', b: '2@5', c: '3@15' });
      dispatchFrom(session, cold('a 4ms b 9ms c', {
        a: NoteAdded({ id: 1, text: 'a' }),
        b: NoteAdded({ id: 2, text: 'b' }),
        c: CounterBumped({ by: 1 }),
      })).subscribe();
    });
  });

  it('debounces bursts with operator middleware: only the last event of a burst is reduced', () => {
    scheduler.run(({ cold, expectObservable }) => {
      const session = createSession({
        slices: [Counter, Notes],
        scheduler,
        middleware: { operators: [debounceTime<Envelope>(10, scheduler)] },
      });
      const source = cold('a-b-c 20ms d', {
        a: NoteAdded({ id: 1, text: 'a' }),
        b: NoteAdded({ id: 2, text: 'b' }),
        c: NoteAdded({ id: 3, text: 'c' }),
        d: NoteAdded({ id: 4, text: 'd' }),
      });
      // c enters at 4 and is reduced at 14; d enters at 25 and is reduced at 35
      expectObservable(session.slice(Notes).all$.pipe(map((notes) => notes.map((n) => n.id).join(',')))).toBe(
        'x 13ms y 20ms z',
        { x: '', y: '3', z: '3,4' },
      );
      expectObservable(committedEvents(session, (c) => `${c.seq}@${c.at}`)).toBe('14ms a 20ms b', { a: '3@4', b: '4@25' });
      dispatchFrom(session, source).subscribe();
    });
  });

  it('runs a follow-up dispatched by a subscriber after the current commit, in FIFO order', () => {
    scheduler.run(({ cold, expectObservable }) => {
      const session = createMarbleSession(scheduler, { slices: [Counter, Notes] });
      session.committed$.subscribe((c) => {
        if (NoteAdded.match(c.event)) session.dispatch(CounterBumped({ by: 100 }));
      });
      expectObservable(committedEvents(session, (c) => `${c.seq}:${c.event.type}`)).toBe('(ab) 3ms (cd)', {
        a: '1:notes/added',
        b: '2:counter/bumped',
        c: '3:notes/added',
        d: '4:counter/bumped',
      });
      expectObservable(session.slice(Counter).latest$.pipe(map((c) => c?.n))).toBe('(xyz) 2ms (uv)', {
        x: 0,
        y: 1,
        z: 101,
        u: 102,
        v: 202,
      });
      dispatchFrom(session, cold('a 6ms b', { a: NoteAdded({ id: 1, text: 'a' }), b: NoteAdded({ id: 2, text: 'b' }) })).subscribe();
    });
  });

  it('unsubscribes middleware and observers on dispose (subscriptions end)', () => {
    scheduler.run(({ hot, expectSubscriptions, expectObservable }) => {
      const session = createMarbleSession(scheduler, { slices: [Counter, Notes] });
      const source = hot('a-b-c', { a: CounterBumped({ by: 1 }), b: CounterBumped({ by: 1 }), c: CounterBumped({ by: 1 }) });
      const sub = dispatchFrom(session, source).subscribe();
      // skip(1): the BehaviorSubject's value at subscription time
      expectObservable(session.slice(Counter).latest$.pipe(skip(1), map((c) => c?.n))).toBe('a-b|', { a: 1, b: 2 });
      scheduler.schedule(() => {
        sub.unsubscribe();
        session.dispose();
      }, 3);
      expectSubscriptions(source.subscriptions).toBe('^--!');
    });
  });
});

describe('createMarbleSession', () => {
  it('wires effects too: a handler runs in virtual time', async () => {
    const { defineEffect, withEffects, append, defineEvent, defineSlice } = await import('../src/index');
    const { z } = await import('zod');
    const Ping = defineEffect('net/ping', z.object({ n: z.number() }), { onSuccess: (e) => Ponged({ n: e.payload.n }) });
    const Pinged = defineEvent('net/pinged', z.object({ n: z.number() }));
    const Ponged = defineEvent('net/ponged', z.object({ n: z.number() }));
    const Log = defineSlice<string>('log', {
      policy: 'log',
      reducers: ({ on }) => [
        on(Pinged, (_v, e) => withEffects(append(`ping ${e.payload.n}`), [Ping({ n: e.payload.n })])),
        on(Ponged, (_v, e) => append(`pong ${e.payload.n}`)),
      ],
    });
    scheduler.run(({ cold, expectObservable }) => {
      const session = createMarbleSession(scheduler, { slices: [Log] });
      session.handle(Ping, () => cold('---r|', { r: 'ok' }));
      // the handler's observable completes at frame 4: its last value is the result, onSuccess dispatches Ponged
      expectObservable(session.slice(Log).latest$).toBe('(ab) c', { a: undefined, b: 'ping 1', c: 'pong 1' });
      scheduler.schedule(() => session.dispatch(Pinged({ n: 1 })), 0);
    });
  });
});
