import { EMPTY, map, of, throwError, type Observable } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { EpicFailedError, InvalidEpicOutputError } from '../../src/effects/errors';
import { installEpics, runEpic, type Epic } from '../../src/effects/epic';
import { createSession, ofType, type Event, type RxSliceError, type Session } from '../../src/index';
import { Counter, CounterBumped, NoteAdded, Notes } from '../fixtures';
import { effectSession, Pinged, Ponged } from './fixtures';

const collect = <T>(source$: Observable<T>): T[] => {
  const out: T[] = [];
  source$.subscribe((v) => out.push(v));
  return out;
};
const errorsOf = (session: Session): RxSliceError[] => collect(session.errors$);
const pongs = (session: Session): number[] => {
  const out: number[] = [];
  session.committed$.pipe(ofType(Ponged)).subscribe((c) => out.push(c.event.payload.n));
  return out;
};
const ponger: Epic = (events$) => events$.pipe(ofType(Pinged), map((env) => Ponged({ n: env.event.payload.n })));

describe('runEpic', () => {
  it('sees each envelope after its commit, with the state already reduced', () => {
    const session = createSession({ slices: [Counter, Notes] });
    const seen: number[] = [];
    runEpic(session, (events$, state) =>
      events$.pipe(
        ofType(CounterBumped),
        map(() => {
          seen.push(state.read(Counter).at(-1)?.n ?? -1);
          return NoteAdded({ id: seen.length, text: 'bumped' });
        }),
      ),
    );
    session.dispatch(CounterBumped({ by: 5 }));
    session.dispatch(CounterBumped({ by: 2 }));
    expect(seen).toEqual([5, 8]);
    // Each NoteAdded also bumps the counter by 1 in the Counter slice.
    expect(session.read(Counter)).toEqual([{ n: 9 }]);
    expect(session.read(Notes).map((n) => n.id)).toEqual([1, 2]);
  });

  it('stops after maxConsecutiveFailures failures in a row and says so', () => {
    const { session } = effectSession();
    const errors = errorsOf(session);
    let subscriptions = 0;
    const handle = runEpic(session, () => {
      subscriptions++;
      return throwError(() => new Error('broken at start'));
    }, { name: 'broken', maxConsecutiveFailures: 3 });
    expect(subscriptions).toBe(3);
    expect(handle.stopped).toBe(true);
    expect(errors.map((e) => [(e as EpicFailedError).consecutiveFailures, (e as EpicFailedError).stopped])).toEqual([
      [1, false],
      [2, false],
      [3, true],
    ]);
    expect(errors[2]?.message).toMatch(/Epic "broken" failed .*It was stopped/);
  });

  it('caps at 10 consecutive failures by default', () => {
    const { session } = effectSession();
    const errors = errorsOf(session);
    const handle = runEpic(session, function alwaysBroken() {
      return throwError(() => new Error('x'));
    });
    expect(handle.name).toBe('alwaysBroken');
    expect(errors).toHaveLength(10);
    expect(handle.stopped).toBe(true);
  });

  it('resets the count when an envelope is handled between failures', () => {
    const { session } = effectSession();
    const errors = errorsOf(session);
    const flaky: Epic = (events$) =>
      events$.pipe(
        ofType(Pinged),
        map((env) => {
          if (env.event.payload.n % 2 === 0) throw new Error(`even ${env.event.payload.n}`);
          return Ponged({ n: env.event.payload.n });
        }),
      );
    const handle = runEpic(session, flaky, { maxConsecutiveFailures: 2 });
    const ponged = pongs(session);
    for (let n = 1; n <= 8; n++) session.dispatch(Pinged({ n }));
    expect(ponged).toEqual([1, 3, 5, 7]);
    expect(errors.every((e) => (e as EpicFailedError).consecutiveFailures === 1)).toBe(true);
    expect(handle.stopped).toBe(false);
  });

  it('with resubscribe: false, stops at the first failure', () => {
    const { session } = effectSession();
    const errors = errorsOf(session);
    const handle = runEpic(session, (events$) => events$.pipe(map(() => {
      throw new Error('once');
    })), { resubscribe: false });
    session.dispatch(Pinged({ n: 1 }));
    session.dispatch(Pinged({ n: 2 }));
    expect(errors).toHaveLength(1);
    expect((errors[0] as EpicFailedError).stopped).toBe(true);
    expect(handle.stopped).toBe(true);
  });

  it('reports an emitted invalid event or non-event and keeps running', () => {
    const { session } = effectSession();
    const errors = errorsOf(session);
    const ponged = pongs(session);
    const sloppy: Epic = (events$) =>
      events$.pipe(
        ofType(Pinged),
        map((env): Event => {
          const n = env.event.payload.n;
          if (n === 1) return Ponged({ n: 'one' as unknown as number });
          if (n === 2) return { type: 'rxslice.effect.fake', payload: 1 };
          if (n === 3) return null as unknown as Event;
          return Ponged({ n });
        }),
      );
    runEpic(session, sloppy);
    for (let n = 1; n <= 4; n++) session.dispatch(Pinged({ n }));
    expect(ponged).toEqual([4]);
    // The session reports each rejection itself, then the epic names itself.
    expect(errors.map((e) => e.code)).toEqual(['INVALID_EVENT', 'INVALID_EPIC_OUTPUT', 'RESERVED_EVENT_TYPE', 'INVALID_EPIC_OUTPUT', 'INVALID_EVENT', 'INVALID_EPIC_OUTPUT']);
    expect(errors[1]).toBeInstanceOf(InvalidEpicOutputError);
    expect(errors[1]?.message).toMatch(/Epic "sloppy" emitted "test\/ponged"/);
  });

  it('stamps events emitted outside the handling of an envelope with the source but no causation', () => {
    const { session } = effectSession();
    const committed = collect(session.committed$);
    runEpic(session, () => of(Ponged({ n: 1 })), { name: 'starter' });
    expect(committed[0]?.meta).toEqual({ source: 'starter' });
  });

  it('completes quietly: a finished epic is stopped without errors', () => {
    const { session } = effectSession();
    const errors = errorsOf(session);
    const handle = runEpic(session, () => EMPTY);
    expect(handle.stopped).toBe(true);
    expect(errors).toEqual([]);
  });

  it('refuses to start on a disposed session and rejects a cap below 1', () => {
    const { session } = effectSession();
    expect(() => runEpic(session, ponger, { maxConsecutiveFailures: 0 })).toThrow(RangeError);
    session.dispose();
    expect(() => runEpic(session, ponger)).toThrow(/session was disposed/);
  });
});

describe('installEpics and installEffects', () => {
  it('passes the dependencies to every epic', () => {
    const session = createSession({ slices: [Notes, Counter], events: [Pinged, Ponged] });
    const deps = { scale: 10 };
    const scaled: Epic<typeof deps> = (events$, _state, d) => events$.pipe(ofType(Pinged), map((env) => Ponged({ n: env.event.payload.n * d.scale })));
    const handles = installEpics(session, [scaled, ponger as Epic<typeof deps>], deps);
    const ponged = pongs(session);
    session.dispatch(Pinged({ n: 2 }));
    expect(ponged.sort((a, b) => a - b)).toEqual([2, 20]);
    expect(handles.map((h) => h.name)).toEqual(['scaled', 'ponger']);
  });

  it('installEffects starts epics with the session dependencies and run() defaults to them', () => {
    const deps = { scale: 3 };
    const scaled: Epic<typeof deps> = (events$, _state, d) => events$.pipe(ofType(Pinged), map((env) => Ponged({ n: env.event.payload.n * d.scale })));
    const { session, fx } = effectSession<typeof deps>(undefined, { epics: [scaled], dependencies: deps });
    const ponged = pongs(session);
    session.dispatch(Pinged({ n: 1 }));
    fx.epics[0]?.stop();
    const again = fx.run(scaled, { name: 'again' });
    session.dispatch(Pinged({ n: 2 }));
    expect(ponged).toEqual([3, 6]);
    expect(again.name).toBe('again');
  });
});
