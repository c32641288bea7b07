import { map, merge, switchMap } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { beforeEach, describe, expect, it } from 'vitest';
import { runEpic, type Epic } from '../src/effects/epic';
import { ofType } from '../src/index';
import { dispatchFrom } from '../src/testing/index';
import { effectSession, Pinged, Ponged } from '../test/effects/fixtures';

let scheduler: TestScheduler;
beforeEach(() => {
  scheduler = new TestScheduler((actual, expected) => expect(actual).toEqual(expected));
});

describe('epics in virtual time', () => {
  it('an epic that throws on one event is reported, resubscribed, and serves the next ones', () => {
    scheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
      const { session } = effectSession(scheduler);
      const alive$ = cold<never>('-'); // never emits: shows when each subscription of the epic starts and ends
      const ponger: Epic = (events$) =>
        merge(
          alive$,
          events$.pipe(
            ofType(Pinged),
            map((env) => {
              if (env.event.payload.n === 2) throw new Error('cannot pong 2');
              return Ponged({ n: env.event.payload.n });
            }),
          ),
        );
      runEpic(session, ponger);
      const trace$ = session.committed$.pipe(
        map((c) => `${c.seq}:${c.event.type}:${c.meta.causationId ?? '-'}:${c.meta.source ?? '-'}`),
      );
      expectObservable(trace$).toBe('(ab)-(cd)-(ef)', {
        a: '1:test/pinged:-:-',
        b: '2:test/ponged:1:ponger',
        c: '3:test/pinged:-:-',
        d: '4:rxslice.effect.failed:-:ponger',
        e: '5:test/pinged:-:-',
        f: '6:test/ponged:5:ponger',
      });
      expectObservable(session.errors$.pipe(map((e) => `${e.code}: ${(e.cause as Error).message}`))).toBe('5ms x', {
        x: 'EPIC_FAILED: cannot pong 2',
      });
      dispatchFrom(session, cold('a----b----c', { a: Pinged({ n: 1 }), b: Pinged({ n: 2 }), c: Pinged({ n: 3 }) })).subscribe();
      expectSubscriptions(alive$.subscriptions).toBe(['^----!', '-----^']);
    });
  });

  it('one failing epic leaves the other epics and the session running', () => {
    scheduler.run(({ cold, expectObservable }) => {
      const { session } = effectSession(scheduler);
      const broken: Epic = (events$) =>
        events$.pipe(
          ofType(Pinged),
          map(() => {
            throw new Error('always');
          }),
        );
      const ponger: Epic = (events$) => events$.pipe(ofType(Pinged), map((env) => Ponged({ n: env.event.payload.n })));
      runEpic(session, broken);
      runEpic(session, ponger);
      expectObservable(session.committed$.pipe(ofType(Ponged), map((c) => c.event.payload.n))).toBe('1-2-3', { 1: 1, 2: 2, 3: 3 });
      dispatchFrom(session, cold('a-b-c', { a: Pinged({ n: 1 }), b: Pinged({ n: 2 }), c: Pinged({ n: 3 }) })).subscribe();
    });
  });

  it('dispose cancels the work an epic has in flight', () => {
    scheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
      const { session } = effectSession(scheduler);
      const work$ = cold('-----w|');
      const worker: Epic = (events$) =>
        events$.pipe(
          ofType(Pinged),
          switchMap((env) => work$.pipe(map(() => Ponged({ n: env.event.payload.n })))),
        );
      runEpic(session, worker);
      expectObservable(session.committed$.pipe(map((c) => c.event.type))).toBe('a--|', { a: 'test/pinged' });
      dispatchFrom(session, cold('a', { a: Pinged({ n: 1 }) })).subscribe();
      scheduler.schedule(() => session.dispose(), 3);
      expectSubscriptions(work$.subscriptions).toBe('^--!');
    });
  });

  it('stop() unsubscribes one epic (switchMap work cancelled); the others keep running', () => {
    scheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
      const { session } = effectSession(scheduler);
      const work$ = cold('-----w|');
      const worker: Epic = (events$) =>
        events$.pipe(
          ofType(Pinged),
          switchMap((env) => work$.pipe(map(() => Ponged({ n: env.event.payload.n })))),
        );
      const handle = runEpic(session, worker, { name: 'worker' });
      expectObservable(session.committed$.pipe(ofType(Ponged), map((c) => c.event.payload.n))).toBe('');
      dispatchFrom(session, cold('a', { a: Pinged({ n: 1 }) })).subscribe();
      scheduler.schedule(() => handle.stop(), 2);
      expectSubscriptions(work$.subscriptions).toBe('^-!');
    });
  });
});
