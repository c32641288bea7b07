import { filter, map } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { all, race, sequence } from '../src/effects/compose';
import { defineEffect } from '../src/effects/define-effect';
import { RetryPolicy } from '../src/effects/retry-policy';
import { createSession, defineEvent } from '../src/index';
import { installEffects } from '../src/effects/install-effects';
import { dispatchFrom } from '../src/testing/index';
import { EffectRequested, effectSession, lifecycle$, request, Requests, SaveCompensated, userEvents$ } from '../test/effects/fixtures';

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

  it('backs off with full jitter reproducibly under a fixed seed (delays 10, 16, 29 within [0, 10], [0, 20], [0, 40])', () => {
    const Save = defineEffect('store/save', z.object({ id: z.number() }), {
      retry: RetryPolicy.exponential({ maxAttempts: 4, initialDelayMs: 10, factor: 2, jitter: 'full', seed: 42 }),
    });
    scheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
      const { session, fx } = effectSession(scheduler);
      const save$ = cold('-#', undefined, new Error('store down'));
      fx.handle(Save, () => save$);
      expectObservable(lifecycle$(session)).toBe('a b 9ms c d 15ms e f 28ms g h', {
        a: 'started store/save 1',
        b: 'retrying store/save 2 in 10',
        c: 'started store/save 2',
        d: 'retrying store/save 3 in 16',
        e: 'started store/save 3',
        f: 'retrying store/save 4 in 29',
        g: 'started store/save 4',
        h: 'failed store/save after 4',
      });
      dispatchFrom(session, cold('r', { r: request(Save({ id: 1 })) })).subscribe();
      expectSubscriptions(save$.subscriptions).toBe(['^!', '11ms ^!', '28ms ^!', '58ms ^!']);
    });
  });

  it('dispatches the compensation exactly once, after the last of three attempts', () => {
    const Save = defineEffect('store/save', z.object({ id: z.number() }), {
      retry: RetryPolicy.fixed(10, 2),
      compensate: (effect) => SaveCompensated({ id: effect.payload.id }),
    });
    scheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
      const { session, fx } = effectSession(scheduler);
      const save$ = cold('-#', undefined, new Error('boom'));
      fx.handle(Save, () => save$);
      expectObservable(userEvents$(session)).toBe('23ms c', { c: 'test/saveCompensated {"id":1}' });
      expectObservable(lifecycle$(session)).toBe('a b 9ms c d 9ms e (fg)', {
        a: 'started store/save 1',
        b: 'retrying store/save 2 in 10',
        c: 'started store/save 2',
        d: 'retrying store/save 3 in 10',
        e: 'started store/save 3',
        f: 'failed store/save after 3',
        g: 'compensated store/save with test/saveCompensated',
      });
      dispatchFrom(session, cold('r', { r: request(Save({ id: 1 })) })).subscribe();
      expectSubscriptions(save$.subscriptions).toBe(['^!', '11ms ^!', '22ms ^!']);
    });
  });
});

describe('effect timeouts', () => {
  it('cancels an attempt at timeoutMs and fails with EffectTimeoutError', () => {
    const Slow = defineEffect('api/slowCalled', undefined, { timeoutMs: 5 });
    scheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
      const { session, fx } = effectSession(scheduler);
      const slow$ = cold('---------r|');
      fx.handle(Slow, () => slow$);
      expectObservable(lifecycle$(session)).toBe('a 4ms b', { a: 'started api/slowCalled 1', b: 'failed api/slowCalled after 1' });
      expectObservable(session.errors$.pipe(map((e) => `${e.code} <- ${(e.cause as Error).name}`))).toBe('5ms x', {
        x: 'EFFECT_FAILED <- EffectTimeoutError',
      });
      dispatchFrom(session, cold('r', { r: request(Slow()) })).subscribe();
      expectSubscriptions(slow$.subscriptions).toBe('^----!');
    });
  });

  it('applies the timeout to each attempt and retries after it', () => {
    const Slow = defineEffect('api/slowCalled', undefined, { timeoutMs: 5, retry: RetryPolicy.fixed(3, 1) });
    scheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
      const { session, fx } = effectSession(scheduler);
      const slow$ = cold('---------r|');
      fx.handle(Slow, () => slow$);
      expectObservable(lifecycle$(session)).toBe('a 4ms b 2ms c 4ms d', {
        a: 'started api/slowCalled 1',
        b: 'retrying api/slowCalled 2 in 3',
        c: 'started api/slowCalled 2',
        d: 'failed api/slowCalled after 2',
      });
      dispatchFrom(session, cold('r', { r: request(Slow()) })).subscribe();
      expectSubscriptions(slow$.subscriptions).toBe(['^----!', '8ms ^----!']);
    });
  });
});

describe('effect concurrency', () => {
  const Found = defineEvent('search/found', z.object({ q: z.string(), result: z.string() }));

  it("'switch' cancels the running handler when the next effect of its type arrives", () => {
    const Search = defineEffect('search/run', z.object({ q: z.string() }), {
      concurrency: 'switch',
      onSuccess: (effect, result: string) => Found({ q: effect.payload.q, result }),
    });
    scheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
      const { session, fx } = effectSession(scheduler);
      const search$ = cold('-----r|', { r: 'hit' });
      fx.handle(Search, () => search$);
      expectObservable(lifecycle$(session)).toBe('a-(bc)--d', {
        a: 'started search/run 1',
        b: 'cancelled search/run 1',
        c: 'started search/run 1',
        d: 'succeeded search/run 1',
      });
      expectObservable(userEvents$(session)).toBe('8ms f', { f: 'search/found {"q":"b","result":"hit"}' });
      dispatchFrom(session, cold('a-b', { a: request(Search({ q: 'a' })), b: request(Search({ q: 'b' })) })).subscribe();
      expectSubscriptions(search$.subscriptions).toBe(['^-!', '--^-----!']);
    });
  });

  it("'exhaust' drops effects that arrive while one runs, and takes the next one after", () => {
    const Sync = defineEffect('sync/run', undefined, { concurrency: 'exhaust' });
    scheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
      const { session, fx } = effectSession(scheduler);
      const sync$ = cold('-----r|');
      fx.handle(Sync, () => sync$);
      expectObservable(lifecycle$(session)).toBe('a-b---c-d-----e', {
        a: 'started sync/run 1',
        b: 'dropped sync/run',
        c: 'succeeded sync/run 1',
        d: 'started sync/run 1',
        e: 'succeeded sync/run 1',
      });
      dispatchFrom(session, cold('a-b-----c', { a: request(Sync()), b: request(Sync()), c: request(Sync()) })).subscribe();
      expectSubscriptions(sync$.subscriptions).toBe(['^-----!', '8ms ^-----!']);
    });
  });

  it("'concat' queues effects and runs them one after another", () => {
    const Write = defineEffect('file/write', undefined, { concurrency: 'concat' });
    scheduler.run(({ cold, expectSubscriptions }) => {
      const { session, fx } = effectSession(scheduler);
      const write$ = cold('-----r|');
      fx.handle(Write, () => write$);
      dispatchFrom(session, cold('a-b', { a: request(Write()), b: request(Write()) })).subscribe();
      expectSubscriptions(write$.subscriptions).toBe(['^-----!', '6ms ^-----!']);
    });
  });

  it("'merge' (default) runs effects side by side", () => {
    const Log = defineEffect('log/write');
    scheduler.run(({ cold, expectSubscriptions }) => {
      const { session, fx } = effectSession(scheduler);
      const log$ = cold('-----r|');
      fx.handle(Log, () => log$);
      dispatchFrom(session, cold('a-b', { a: request(Log()), b: request(Log()) })).subscribe();
      expectSubscriptions(log$.subscriptions).toBe(['^-----!', '--^-----!']);
    });
  });
});

describe('composition', () => {
  const Fast = defineEffect('cache/read');
  const Slow = defineEffect('api/read');

  it('race: the first to settle wins and the loser is unsubscribed', () => {
    scheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
      const { session, fx } = effectSession(scheduler);
      const fast$ = cold('----a|');
      const slow$ = cold('--------b|');
      fx.handle(Fast, () => fast$);
      fx.handle(Slow, () => slow$);
      expectObservable(lifecycle$(session)).toBe('(ab)-(cd)', {
        a: 'started cache/read 1',
        b: 'started api/read 1',
        c: 'succeeded cache/read 1',
        d: 'cancelled api/read 1',
      });
      dispatchFrom(session, cold('r', { r: request(race([Fast(), Slow()])) })).subscribe();
      expectSubscriptions(fast$.subscriptions).toBe('^----!');
      expectSubscriptions(slow$.subscriptions).toBe('^----!');
    });
  });

  it('all: runs side by side; a failure cancels the others', () => {
    const Broken = defineEffect('api/broken');
    scheduler.run(({ cold, expectSubscriptions }) => {
      const { session, fx } = effectSession(scheduler);
      const slow$ = cold('--------b|');
      const broken$ = cold('--#');
      fx.handle(Slow, () => slow$);
      fx.handle(Broken, () => broken$);
      dispatchFrom(session, cold('r', { r: request(all([Slow(), Broken()])) })).subscribe();
      expectSubscriptions(slow$.subscriptions).toBe('^-!');
      expectSubscriptions(broken$.subscriptions).toBe('^-!');
    });
  });

  it('sequence: each step starts when the previous succeeded and receives its result', () => {
    const FetchUser = defineEffect('user/fetch', z.object({ id: z.number() }));
    const Greeted = defineEvent('user/greeted', z.object({ text: z.string() }));
    const Greet = defineEffect('user/greet', z.object({ name: z.string() }), {
      onSuccess: (_effect, text: string) => Greeted({ text }),
    });
    const greetedNames: string[] = [];
    scheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
      const { session, fx } = effectSession(scheduler);
      const fetch$ = cold('--u|', { u: { name: 'ada' } });
      const greet$ = cold('-g|', { g: 'hello ada' });
      fx.handle(FetchUser, () => fetch$);
      fx.handle(Greet, (effect) => {
        greetedNames.push(effect.payload.name);
        return greet$;
      });
      expectObservable(userEvents$(session)).toBe('5ms g', { g: 'user/greeted {"text":"hello ada"}' });
      const steps = sequence([FetchUser({ id: 1 }), (user) => Greet({ name: (user as { name: string }).name })]);
      dispatchFrom(session, cold('r', { r: request(steps) })).subscribe();
      expectSubscriptions(fetch$.subscriptions).toBe('^--!');
      expectSubscriptions(greet$.subscriptions).toBe('---^-!');
    });
    expect(greetedNames).toEqual(['ada']);
  });
});

describe('sequence compensation', () => {
  it('when a later step fails, its own compensation runs, then the completed steps are compensated in reverse (as a saga does)', () => {
    const Undone = defineEvent('infra/undone', z.object({ what: z.string(), because: z.string() }));
    const undo = (what: string) => (_effect: unknown, error: unknown) => Undone({ what, because: (error as Error).message });
    const Create = defineEffect('infra/create', undefined, { compensate: undo('create') });
    const Configure = defineEffect('infra/configure', undefined, { compensate: undo('configure') });
    const Plain = defineEffect('infra/plain'); // no compensation: skipped
    const Deploy = defineEffect('infra/deploy', undefined, { compensate: undo('deploy') });
    scheduler.run(({ cold, expectObservable }) => {
      const session = createSession({ slices: [Requests], events: [Undone, EffectRequested], scheduler });
      const fx = installEffects(session);
      fx.handle(Create, () => cold('-c|', { c: 'vm' }));
      fx.handle(Configure, () => cold('-n|', { n: 'net' }));
      fx.handle(Plain, () => cold('-p|', { p: 'p' }));
      fx.handle(Deploy, () => cold('-#', undefined, new Error('deploy failed')));
      expectObservable(userEvents$(session)).toBe('7ms (dnc)', {
        d: 'infra/undone {"what":"deploy","because":"deploy failed"}',
        n: 'infra/undone {"what":"configure","because":"deploy failed"}',
        c: 'infra/undone {"what":"create","because":"deploy failed"}',
      });
      expectObservable(lifecycle$(session).pipe(filter((l) => l.startsWith('compensated')))).toBe('7ms (xyz)', {
        x: 'compensated infra/deploy with infra/undone',
        y: 'compensated infra/configure with infra/undone',
        z: 'compensated infra/create with infra/undone',
      });
      dispatchFrom(session, cold('r', { r: request(sequence([Create(), Configure(), Plain(), Deploy()])) })).subscribe();
    });
  });
});

describe('dispose', () => {
  it('cancels effects in flight: their subscriptions end at dispose, with no further events', () => {
    const Upload = defineEffect('file/upload');
    scheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
      const { session, fx } = effectSession(scheduler);
      const upload$ = cold('-----r|');
      fx.handle(Upload, () => upload$);
      expectObservable(lifecycle$(session)).toBe('a--|', { a: 'started file/upload 1' });
      dispatchFrom(session, cold('r', { r: request(Upload()) })).subscribe();
      scheduler.schedule(() => session.dispose(), 3);
      expectSubscriptions(upload$.subscriptions).toBe('^--!');
    });
  });
});
