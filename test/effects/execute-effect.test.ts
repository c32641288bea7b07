import { EMPTY, filter, NEVER, Observable, of, takeUntil, throwError, VirtualTimeScheduler, type ObservableInput } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineEffect, type EffectOptions } from '../../src/effects/define-effect';
import type { EffectContext } from '../../src/effects/effect-handler';
import { EffectCancelledError } from '../../src/effects/errors';
import { installEffects } from '../../src/effects/install-effects';
import { RetryPolicy } from '../../src/effects/retry-policy';
import { runEffect } from '../../src/effects/handle-effect';
import { createSession, type RxSliceError } from '../../src/index';
import { request, Requests, SaveCompensated, Saved } from './fixtures';

type Handler = (effect: { type: string; payload: { id: number } }, ctx: EffectContext) => ObservableInput<unknown>;

const base: EffectOptions<'test/run', { id: number }, unknown> = {
  onSuccess: (effect, result) => Saved({ id: effect.payload.id, result: result ?? null }),
  compensate: (effect) => SaveCompensated({ id: effect.payload.id }),
};
/** One attempt, no timeout: the direct path. */
const Direct = defineEffect('test/run', z.object({ id: z.number() }), base);
/** The same effect through the `retry`/`timeout` operators: a timeout that never fires (virtual time is not advanced). */
const ViaOperators = defineEffect('test/run', z.object({ id: z.number() }), { ...base, timeoutMs: 1_000, retry: RetryPolicy.none });
/** With retries: the same events as long as the first attempt is the last one. */
const WithRetries = defineEffect('test/run', z.object({ id: z.number() }), { ...base, retry: RetryPolicy.fixed(10, 2) });

/**
 * Everything observable about runs of `def`: committed envelopes, errors, handler calls, and
 * (for `runEffect`) the subscriber's notifications, in one ordered log.
 */
function trace(def: typeof Direct, handler: Handler, drive: (ctx: Drive) => void): unknown[] {
  const log: unknown[] = [];
  const scheduler = new VirtualTimeScheduler();
  const session = createSession({ slices: [Requests], events: [Saved, SaveCompensated], scheduler });
  session.committed$.subscribe((c) => log.push(['committed', c.seq, c.event, c.meta]));
  session.errors$.subscribe((e: RxSliceError) => log.push(['error', e.name, e.code, (e as { stage?: unknown }).stage, String((e.cause as Error | undefined)?.message)]));
  const registration = installEffects(session).handle(def, (effect, ctx) => {
    log.push(['handler', effect.payload, ctx.attempt, ctx.effectId]);
    return handler(effect, ctx);
  });
  const observer = {
    next: (value: unknown) => log.push(['next', value]),
    error: (error: unknown) => log.push(['error notification', String((error as Error).message)]),
    complete: () => log.push(['complete']),
  };
  const started$ = session.committed$.pipe(filter((c) => c.event.type === 'rxslice.effect.started'));
  drive({
    request: (id) => void session.dispatch(request(def({ id }))),
    run: (id) => runEffect(session, def({ id })).subscribe(observer),
    runUntilStarted: (id) => void runEffect(session, def({ id })).pipe(takeUntil(started$)).subscribe(observer),
    stop: () => registration.stop(),
    dispose: () => session.dispose(),
  });
  return log;
}

interface Drive {
  request(id: number): void;
  run(id: number): { unsubscribe(): void };
  /** Runs the effect outside a dispatch, unsubscribing as soon as its `started` event is committed. */
  runUntilStarted(id: number): void;
  stop(): void;
  dispose(): void;
}

const scenarios: [string, Handler, (d: Drive) => void][] = [
  ['several values: the last is the result', () => of(1, 2, 3), (d) => (d.request(1), d.run(2))],
  ['no value: the result is undefined', () => EMPTY, (d) => (d.request(1), d.run(2))],
  ['an error: failed, then the compensation', () => throwError(() => new Error('boom')), (d) => (d.request(1), d.run(2))],
  [
    'a handler that throws',
    () => {
      throw new Error('thrown');
    },
    (d) => (d.request(1), d.run(2)),
  ],
  ['a handler that returns no observable input', () => undefined as unknown as ObservableInput<unknown>, (d) => (d.request(1), d.run(2))],
  ['cancelled by unsubscribing runEffect', () => NEVER, (d) => d.run(1).unsubscribe()],
  ['cancelled by stop()', () => NEVER, (d) => (d.request(1), d.request(2), d.stop())],
  ['cancelled by dispose()', () => NEVER, (d) => (d.request(1), d.dispose())],
  [
    'a handler that emits after its run was cancelled',
    (_effect, ctx) =>
      new Observable((subscriber) => {
        ctx.signal.addEventListener('abort', () => {
          subscriber.next('late');
          subscriber.complete();
        });
      }),
    (d) => d.run(1).unsubscribe(),
  ],
];

describe('the direct path (one attempt, no timeout) and the retry/timeout operators', () => {
  it.each(scenarios)('dispatch the same events in the same order: %s', (_name, handler, drive) => {
    const direct = trace(Direct, handler, drive);
    expect(direct.length).toBeGreaterThan(2);
    expect(trace(ViaOperators, handler, drive)).toEqual(direct);
  });

  it.each([
    ['a synchronous success', () => of(1)],
    ['a synchronous failure', () => throwError(() => new Error('boom'))],
    ['a handler that never settles', (_effect: unknown, ctx: EffectContext) => new Observable(() => void ctx.signal)],
  ] as [string, Handler][])('are cancelled the same way by an unsubscription during `started`: %s', (_name, handler) => {
    const direct = trace(Direct, handler, (d) => d.runUntilStarted(1));
    expect(direct.some((entry) => (entry as unknown[])[0] === 'handler')).toBe(true);
    expect(trace(ViaOperators, handler, (d) => d.runUntilStarted(1))).toEqual(direct);
    expect(trace(WithRetries, handler, (d) => d.runUntilStarted(1))).toEqual(direct);
  });

  it('report a reentrant run the same way (a success event whose reducer requests the next effect)', () => {
    const chain = (def: typeof Direct): unknown[] => {
      const log: unknown[] = [];
      const session = createSession({ slices: [Requests], events: [Saved, SaveCompensated], scheduler: new VirtualTimeScheduler() });
      session.committed$.subscribe((c) => log.push([c.seq, c.event.type, c.meta]));
      installEffects(session).handle(def, (effect) => of(effect.payload.id));
      session.committed$.subscribe((c) => {
        if (Saved.match(c.event) && c.event.payload.id < 3) session.dispatch(request(def({ id: c.event.payload.id + 1 })));
      });
      session.dispatch(request(def({ id: 1 })));
      return log;
    };
    const direct = chain(Direct);
    expect(direct.filter((entry) => (entry as unknown[])[1] === 'test/saved')).toHaveLength(3);
    expect(chain(ViaOperators)).toEqual(direct);
  });
});

describe('ctx.signal', () => {
  const Wait = defineEffect('test/wait', undefined, { concurrency: 'switch' });

  it('is aborted on cancellation when it was read before, and already aborted when first read after', () => {
    const session = createSession({ slices: [Requests] });
    const contexts: EffectContext[] = [];
    const early: AbortSignal[] = [];
    installEffects(session).handle(Wait, (_effect, ctx) => {
      contexts.push(ctx);
      if (contexts.length === 1) early.push(ctx.signal);
      return NEVER;
    });
    session.dispatch(request(Wait()));
    expect(early[0]?.aborted).toBe(false);
    session.dispatch(request(Wait())); // switch: cancels the first run
    session.dispatch(request(Wait())); // cancels the second, whose signal was never read
    expect(early[0]?.reason).toBeInstanceOf(EffectCancelledError);
    const late = contexts[1]?.signal;
    expect(late?.aborted).toBe(true);
    expect(late?.reason).toBeInstanceOf(EffectCancelledError);
    expect((late?.reason as EffectCancelledError).message).toBe((early[0]?.reason as EffectCancelledError).message);
    expect(contexts[1]?.signal).toBe(late); // one signal per attempt
    expect(contexts[2]?.signal.aborted).toBe(false);
    const { signal, attempt, effectId } = contexts[2] as EffectContext;
    expect([signal, attempt, effectId]).toEqual([contexts[2]?.signal, 1, 3]);
  });

  it('is not aborted when the attempt settled before it was cancelled', () => {
    const session = createSession({ slices: [Requests] });
    let seen: AbortSignal | undefined;
    const Quick = defineEffect('test/quick');
    installEffects(session).handle(Quick, (_effect, ctx) => {
      seen = ctx.signal;
      return of(1);
    });
    session.dispatch(request(Quick()));
    session.dispose();
    expect(seen?.aborted).toBe(false);
  });
});
