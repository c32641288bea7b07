import { config, delay, filter, map, Observable, type OperatorFunction } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { afterEach, describe, expect, it } from 'vitest';
import {
  createSession,
  defineComputed,
  InvalidEventError,
  ReducerError,
  ReservedEventTypeError,
  SessionRestored,
  type Envelope,
  type RxSliceError,
} from '../../src/index';
import { SESSION_INTERNALS } from '../../src/session/internals';
import { Counter, CounterBumped, NoteAdded, Notes } from '../fixtures';

const make = (operators: OperatorFunction<Envelope, Envelope>[] = [], validation: 'always' | 'off' = 'always') =>
  createSession({ slices: [Counter, Notes], middleware: { operators }, validation });

const failOn = (text: string) =>
  map((env: Envelope) => {
    if (NoteAdded.match(env.event) && env.event.payload.text === text) throw new Error(`middleware refused ${text}`);
    return env;
  });

describe('a throwing operator middleware rejects one envelope, never the session', () => {
  it('makes that dispatch throw, reports it, and applies the next event, even after many throws in a row', () => {
    const s = make([failOn('bad')]);
    const errors: RxSliceError[] = [];
    s.errors$.subscribe((e) => errors.push(e));
    for (let i = 0; i < 25; i++) {
      expect(() => s.dispatch(NoteAdded({ id: i, text: 'bad' }))).toThrow(ReducerError);
    }
    expect(errors).toHaveLength(25);
    expect(errors.every((e) => e.code === 'REDUCER_FAILED' && (e.cause as Error).message === 'middleware refused bad')).toBe(true);
    s.dispatch(NoteAdded({ id: 100, text: 'good' }));
    expect(s.slice(Notes).all()).toEqual([{ id: 100, text: 'good' }]);
    expect(s.slice(Counter).latest()).toEqual({ n: 1 });
  });

  it('throws for an operator that fails on subscribe, once per dispatch, without looping', () => {
    let subscribes = 0;
    const broken: OperatorFunction<Envelope, Envelope> = () =>
      new Observable<Envelope>((subscriber) => {
        subscribes++;
        subscriber.error(new Error('cannot subscribe'));
      });
    const s = make([broken]);
    const afterCreate = subscribes;
    expect(afterCreate).toBeLessThanOrEqual(1);
    expect(() => s.dispatch(NoteAdded({ id: 1, text: 'a' }))).toThrow(/cannot subscribe/);
    expect(() => s.dispatch(NoteAdded({ id: 2, text: 'b' }))).toThrow(ReducerError);
    expect(subscribes - afterCreate).toBe(2);
    expect(s.slice(Notes).all()).toEqual([]);
  });

  it('reports a failure of a delayed envelope later, and the next dispatch reconnects the middleware', () => {
    const scheduler = new TestScheduler((a, b) => expect(a).toEqual(b));
    scheduler.run(({ flush }) => {
      const s = createSession({ slices: [Counter, Notes], scheduler, middleware: { operators: [delay(10, scheduler), failOn('bad')] } });
      const errors: RxSliceError[] = [];
      s.errors$.subscribe((e) => errors.push(e));
      s.dispatch(NoteAdded({ id: 1, text: 'bad' })); // deferred: returns normally
      expect(errors).toEqual([]);
      flush();
      // Rejected: reported with the seq that was current (0); the next commit takes seq 1.
      expect(errors.map((e) => [e.code, (e as ReducerError).envelope.seq])).toEqual([['REDUCER_FAILED', 0]]);
      s.dispatch(NoteAdded({ id: 2, text: 'good' }));
      flush();
      expect(s.slice(Notes).all()).toEqual([{ id: 2, text: 'good' }]);
      expect(s.lastSeq).toBe(1);
    });
  });

  it('resubscribes a middleware that completed, so later events are still applied', () => {
    let completeNext = false;
    const completing: OperatorFunction<Envelope, Envelope> = (source) =>
      new Observable<Envelope>((subscriber) =>
        source.subscribe({
          next: (env) => {
            subscriber.next(env);
            if (completeNext) subscriber.complete();
          },
        }),
      );
    const s = make([completing]);
    completeNext = true;
    s.dispatch(NoteAdded({ id: 1, text: 'a' }));
    completeNext = false;
    s.dispatch(NoteAdded({ id: 2, text: 'b' }));
    expect(s.slice(Notes).all().map((n) => n.id)).toEqual([1, 2]);
  });

  it('rejects an envelope that leaves the middleware with a reserved or missing event type', () => {
    const forge = map((env: Envelope) =>
      NoteAdded.match(env.event) && env.event.payload.text === 'forge'
        ? { ...env, event: { type: 'rxslice.slice.seeded', payload: { slice: 'counter', items: [{ n: 'pwned' }] } } }
        : env,
    );
    const s = make([forge]);
    expect(() => s.dispatch(NoteAdded({ id: 1, text: 'forge' }))).toThrow(ReducerError);
    expect(s.slice(Counter).latest()).toEqual({ n: 0 });
    s.dispatch(NoteAdded({ id: 2, text: 'ok' }));
    expect(s.slice(Notes).size).toBe(1);
  });
});

describe('a reducer that throws something hostile', () => {
  it('still fails with a ReducerError', () => {
    const s = make([failOn('never')]);
    const hostile = { toString: () => { throw new Error('toString'); } };
    s.slice(Counter).register(NoteAdded, () => {
      throw hostile;
    });
    let error: unknown;
    try {
      s.dispatch(NoteAdded({ id: 1, text: 'a' }));
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ReducerError);
    expect((error as ReducerError).cause).toBe(hostile);
    expect(s.slice(Notes).size).toBe(0);
  });
});

describe('library events bypass operator middleware', () => {
  const appOnly = filter((env: Envelope) => !env.event.type.startsWith('rxslice.'));
  const dropAll = filter((_env: Envelope) => false);

  it('a filter that lets only application events through does not stop a transaction rollback', () => {
    const s = make([appOnly]);
    const committed: string[] = [];
    const entered: string[] = [];
    s.committed$.subscribe((c) => committed.push(c.event.type));
    s.events$.subscribe((e) => entered.push(e.event.type));
    expect(() =>
      s.transaction(() => {
        s.dispatch(CounterBumped({ by: 5 }));
        throw new Error('abort');
      }),
    ).toThrow('abort');
    expect(s.slice(Counter).latest()).toEqual({ n: 0 });
    expect(committed).toEqual(['counter/bumped', 'rxslice.session.restored']);
    expect(entered).toEqual(['counter/bumped', 'rxslice.session.restored']);
  });

  it('restores, seeds, clears and resets under a middleware that drops everything, and keeps no snapshot', () => {
    const s = make([dropAll]);
    s.slice(Counter).seed([{ n: 3 }]);
    expect(s.slice(Counter).latest()).toEqual({ n: 3 });
    const snap = s.snapshot({ includeLogs: true });
    s.slice(Counter).seed([{ n: 4 }]);
    for (let i = 0; i < 200; i++) s.restore(snap);
    expect(s.slice(Counter).latest()).toEqual({ n: 3 });
    expect(s[SESSION_INTERNALS].pendingRestores).toBe(0);
    s.reset({ to: 'initial' });
    expect(s.slice(Counter).latest()).toEqual({ n: 0 });
    s.reset();
    expect(s.slice(Counter).isEmpty).toBe(true);
  });

  it('keeps no snapshot of a restore queued behind the envelope being processed, once it ran', () => {
    const s = make([map((env: Envelope) => env)]);
    const snap = s.snapshot();
    let restoredInside = false;
    s.committed$.subscribe((c) => {
      if (CounterBumped.match(c.event) && !restoredInside) {
        restoredInside = true;
        s.restore(snap);
        expect(s[SESSION_INTERNALS].pendingRestores).toBe(1);
      }
    });
    s.dispatch(CounterBumped({ by: 2 }));
    expect(s.slice(Counter).latest()).toEqual({ n: 0 });
    expect(s[SESSION_INTERNALS].pendingRestores).toBe(0);
  });

  it('a middleware rewriting library events has no effect on them', () => {
    const rewrite = map((env: Envelope) => (SessionRestored.match(env.event) ? { ...env, event: { ...env.event, payload: { slices: [], fromSeq: 0 } } } : env));
    const s = make([rewrite]);
    const snap = s.snapshot();
    s.dispatch(CounterBumped({ by: 1 }));
    s.restore(snap);
    expect(s.slice(Counter).latest()).toEqual({ n: 0 });
  });
});

describe('the event is read once, at accept time', () => {
  it('an event whose type getter changes between reads cannot pass as a library event', () => {
    const s = make();
    let reads = 0;
    const sneaky = {
      get type() {
        return ++reads <= 3 ? 'notes/added' : 'rxslice.slice.seeded';
      },
      payload: { id: 1, text: 'x', slice: 'counter', items: [{ n: 'pwned' }] },
    };
    try {
      s.dispatch(sneaky as never);
    } catch {
      // rejecting it is fine too
    }
    expect(s.slice(Counter).latest()).not.toEqual({ n: 'pwned' });
    expect(reads).toBe(1);
    expect(s.slice(Notes).all()).toEqual([{ id: 1, text: 'x' }]);
  });

  it('a payload getter is read once, and the schema-checked value is what reducers see', () => {
    const s = make();
    let reads = 0;
    const event = {
      type: 'notes/added',
      get payload() {
        return ++reads === 1 ? { id: 1, text: 'checked' } : { id: 'evil', text: 5 };
      },
    };
    s.dispatch(event as never);
    expect(s.slice(Notes).all()).toEqual([{ id: 1, text: 'checked' }]);
    expect(reads).toBe(1);
  });

  it('reads the event once with validation off too', () => {
    const s = make([], 'off');
    let reads = 0;
    const event = {
      get type() {
        return ++reads === 1 ? 'counter/bumped' : 'rxslice.session.reset';
      },
      payload: { by: 2 },
    };
    s.dispatch(event as never);
    expect(s.slice(Counter).latest()).toEqual({ n: 2 });
    expect(reads).toBe(1);
  });

  it('throwing getters and throwing proxies are InvalidEventError and change nothing', () => {
    const s = make([map((env: Envelope) => env)]);
    const errors: RxSliceError[] = [];
    s.errors$.subscribe((e) => errors.push(e));
    const throwingType = Object.defineProperty({ payload: {} }, 'type', {
      get() {
        throw new Error('type getter');
      },
    });
    const throwingPayload = Object.defineProperty({ type: 'notes/added' }, 'payload', {
      get() {
        throw new Error('payload getter');
      },
    });
    const proxy = new Proxy(
      {},
      {
        get() {
          throw new Error('trap');
        },
      },
    );
    const revoked = Proxy.revocable({}, {});
    revoked.revoke();
    const hostileToString = { type: { toString: () => { throw new Error('toString'); } }, payload: {} };
    const fn = Object.assign(() => undefined, { toString: () => { throw new Error('toString'); } });
    const bads = [throwingType, throwingPayload, proxy, revoked.proxy, hostileToString, fn];
    const thrown: unknown[] = [];
    for (const bad of bads) {
      try {
        s.dispatch(bad as never);
      } catch (error) {
        thrown.push(error);
      }
    }
    expect(thrown).toHaveLength(bads.length);
    for (const error of thrown) expect(error).toBeInstanceOf(InvalidEventError);
    // Thrown to the caller and reported on errors$, like every rejection (the same error objects).
    expect(errors).toEqual(thrown);
    expect(s.lastSeq).toBe(0);
    expect(s.slice(Notes).size).toBe(0);
    s.dispatch(NoteAdded({ id: 1, text: 'fine' }));
    expect(s.slice(Notes).size).toBe(1);
  });

  it('still rejects a reserved type read from a plain object', () => {
    const s = make();
    expect(() => s.dispatch({ type: 'rxslice.slice.cleared', payload: { slice: 'counter' } } as never)).toThrow(ReservedEventTypeError);
  });

  it('meta is copied once: a throwing meta getter is rejected', () => {
    const s = make();
    const meta = Object.defineProperty({}, 'source', {
      enumerable: true,
      get() {
        throw new Error('meta getter');
      },
    });
    expect(() => s.dispatch(NoteAdded({ id: 1, text: 'a' }), meta)).toThrow(InvalidEventError);
    expect(s.slice(Notes).size).toBe(0);
  });
});

describe('a throwing subscriber', () => {
  const previous = config.onUnhandledError;
  afterEach(() => {
    config.onUnhandledError = previous;
  });

  const Total = defineComputed('total', [Counter], (items) => items.at(-1)?.n ?? 0);

  it('is reported on errors$ as SUBSCRIBER_FAILED and the other subscribers still get every value', () => {
    const unhandled: unknown[] = [];
    config.onUnhandledError = (e) => unhandled.push(e);
    const s = make();
    const errors: RxSliceError[] = [];
    s.errors$.subscribe((e) => errors.push(e));
    const seen = { all: [] as number[], value: [] as number[], committed: [] as number[] };
    s.slice(Counter).all$.subscribe(() => {
      throw new Error('all$ subscriber');
    });
    s.slice(Counter).all$.subscribe((items) => seen.all.push(items.at(-1)?.n ?? -1));
    s.computed(Total).value$.subscribe(() => {
      throw new Error('value$ subscriber');
    });
    s.computed(Total).value$.subscribe((v) => seen.value.push(v));
    s.committed$.subscribe(() => {
      throw new Error('committed$ subscriber');
    });
    s.committed$.subscribe((c) => seen.committed.push(c.seq));
    const before = errors.length;
    s.dispatch(CounterBumped({ by: 1 }));
    s.dispatch(CounterBumped({ by: 1 }));
    expect(seen).toEqual({ all: [0, 1, 2], value: [0, 1, 2], committed: [1, 2] });
    const failures = errors.slice(before);
    expect(failures.map((e) => e.code)).toEqual(Array(6).fill('SUBSCRIBER_FAILED'));
    expect(failures.map((e) => (e.cause as Error).message).sort()).toEqual(
      ['all$ subscriber', 'all$ subscriber', 'committed$ subscriber', 'committed$ subscriber', 'value$ subscriber', 'value$ subscriber'].sort(),
    );
    expect(errors.slice(0, before).map((e) => e.code)).toEqual(['SUBSCRIBER_FAILED', 'SUBSCRIBER_FAILED']);
    expect(unhandled).toEqual([]);
  });

  it('in a piped chain (an operator that throws, or the final subscriber) is reported on errors$ too', () => {
    const unhandled: unknown[] = [];
    config.onUnhandledError = (e) => unhandled.push(e);
    const s = make();
    const errors: RxSliceError[] = [];
    s.errors$.subscribe((e) => errors.push(e));
    s.slice(Counter).all$.pipe(map((items) => items.length)).subscribe((n) => {
      if (n > 0 && s.slice(Counter).latest()?.n === 1) throw new Error('piped subscriber');
    });
    s.committed$
      .pipe(
        map(() => {
          throw new Error('piped operator');
        }),
      )
      .subscribe();
    s.dispatch(CounterBumped({ by: 1 }));
    expect(errors.map((e) => [e.code, (e.cause as Error).message])).toEqual([
      ['SUBSCRIBER_FAILED', 'piped subscriber'],
      ['SUBSCRIBER_FAILED', 'piped operator'],
    ]);
    expect(unhandled).toEqual([]);
  });

  it('reaches the RxJS unhandled-error hook when nobody listens on errors$', async () => {
    const reported = new Promise<unknown>((resolve) => {
      config.onUnhandledError = resolve;
    });
    const s = make();
    s.committed$.subscribe(() => {
      throw new Error('nobody listens');
    });
    s.dispatch(CounterBumped({ by: 1 }));
    expect(((await reported) as Error).message).toBe('nobody listens');
  });

  it('does not touch subscribers that handle their own errors', () => {
    const s = make();
    const errors: RxSliceError[] = [];
    s.errors$.subscribe((e) => errors.push(e));
    const handled: string[] = [];
    s.committed$
      .pipe(
        map(() => {
          throw new Error('handled');
        }),
      )
      .subscribe({ error: (e: Error) => handled.push(e.message) });
    s.dispatch(CounterBumped({ by: 1 }));
    expect(handled).toEqual(['handled']);
    expect(errors).toEqual([]);
  });
});

