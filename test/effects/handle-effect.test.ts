import { filter, firstValueFrom, lastValueFrom, of, toArray, VirtualTimeScheduler, type Observable } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineEffect } from '../../src/effects/define-effect';
import { handleEffect, effects$, runEffect } from '../../src/effects/handle-effect';
import {
  DuplicateEffectHandlerError,
  EffectCancelledError,
  EffectFailedError,
  EffectTimeoutError,
  MissingEffectHandlerError,
} from '../../src/effects/errors';
import { installEffects } from '../../src/effects/install-effects';
import { RetryPolicy } from '../../src/effects/retry-policy';
import { createSession, defineEvent, type CommittedEnvelope, type RxSliceError, type Session } from '../../src/index';
import { effectSession, request, Requests, SaveCompensated, Saved } from './fixtures';

const collect = <T>(source$: Observable<T>): T[] => {
  const out: T[] = [];
  source$.subscribe((v) => out.push(v));
  return out;
};
const errorsOf = (session: Session): RxSliceError[] => collect(session.errors$);
const typesOf = (session: Session): string[] => {
  const out: string[] = [];
  session.committed$.subscribe((c) => out.push(c.event.type));
  return out;
};
const settled = (session: Session): Promise<CommittedEnvelope> =>
  firstValueFrom(session.committed$.pipe(filter((c) => c.event.type === 'rxslice.effect.succeeded' || c.event.type === 'rxslice.effect.failed')));
/** A handler promise that only ends when its signal is aborted; records the abort reasons. */
const untilAborted = (reasons: unknown[]) => (_effect: unknown, ctx: { signal: AbortSignal }) =>
  new Promise<never>((_resolve, reject) => {
    ctx.signal.addEventListener('abort', () => {
      reasons.push(ctx.signal.reason);
      reject(ctx.signal.reason);
    });
  });

const Save = defineEffect('store/save', z.object({ id: z.number() }), {
  onSuccess: (effect, result: string) => Saved({ id: effect.payload.id, result }),
});

describe('async handlers', () => {
  it('runs after the commit and dispatches started, succeeded and the success event, caused by the request', async () => {
    const { session, fx } = effectSession(undefined, { dependencies: { prefix: 'ok:' } });
    const trace = collect(session.committed$);
    fx.handle(Save, async (effect, ctx) => `${(ctx.deps as { prefix: string }).prefix}${effect.payload.id}@${ctx.attempt}`);
    const done = firstValueFrom(session.committed$.pipe(filter((c) => Saved.match(c.event))));
    const env = session.dispatch(request(Save({ id: 7 })), { correlationId: 'flow-1' });
    await done;
    expect(trace.map((c) => c.event.type)).toEqual([
      'test/effectRequested',
      'rxslice.effect.started',
      'rxslice.effect.succeeded',
      'test/saved',
    ]);
    expect(trace[3]?.event.payload).toEqual({ id: 7, result: 'ok:7@1' });
    for (const c of trace.slice(1)) {
      expect(c.meta).toEqual({ causationId: env.seq, correlationId: 'flow-1', source: 'effect:store/save' });
    }
    expect(trace[1]?.event.payload).toEqual({ effectId: 1, effectType: 'store/save', attempt: 1 });
  });

  it('reports a rejected handler as rxslice.effect.failed and an EffectFailedError whose cause is the rejection', async () => {
    const { session, fx } = effectSession();
    const errors = errorsOf(session);
    const boom = new Error('disk full');
    fx.handle(Save, async () => {
      throw boom;
    });
    const done = settled(session);
    session.dispatch(request(Save({ id: 1 })));
    const failed = await done;
    expect(failed.event.payload).toEqual({
      kind: 'effect',
      effectId: 1,
      effectType: 'store/save',
      attempts: 1,
      error: { name: 'Error', message: 'disk full' },
    });
    expect(errors).toHaveLength(1);
    expect(errors[0]).toBeInstanceOf(EffectFailedError);
    expect(errors[0]).toMatchObject({ code: 'EFFECT_FAILED', stage: 'handler', attempts: 1, effectType: 'store/save' });
    expect(errors[0]?.cause).toBe(boom);
  });

  it('treats a handler that throws synchronously as a failed attempt and retries it', async () => {
    const Flaky = defineEffect('x/flaky', undefined, { retry: RetryPolicy.fixed(0, 2) });
    const { session, fx } = effectSession();
    const attempts: number[] = [];
    fx.handle(Flaky, (_e, ctx) => {
      attempts.push(ctx.attempt);
      if (ctx.attempt < 3) throw new Error(`attempt ${ctx.attempt}`);
      return of('third time');
    });
    const done = settled(session);
    session.dispatch(request(Flaky()));
    expect((await done).event.type).toBe('rxslice.effect.succeeded');
    expect(attempts).toEqual([1, 2, 3]);
  });
});

describe('observable handlers', () => {
  it('take the last value before completion as the result, undefined when none', async () => {
    const Multi = defineEffect('x/multi');
    const Empty = defineEffect('x/empty');
    const session = createSession({ slices: [Requests] });
    handleEffect(session, Multi, () => of(1, 2, 3));
    handleEffect(session, Empty, () => of());
    expect(await lastValueFrom(runEffect(session, Multi()).pipe(toArray()))).toEqual([3]);
    expect(await lastValueFrom(runEffect(session, Empty()).pipe(toArray()))).toEqual([undefined]);
  });
});

describe('missing and duplicate handlers', () => {
  it('reports an effect with no handler as MissingEffectHandlerError instead of dropping it silently', () => {
    const { session } = effectSession();
    const errors = errorsOf(session);
    session.dispatch(request(Save({ id: 1 })));
    expect(errors).toHaveLength(1);
    expect(errors[0]).toBeInstanceOf(MissingEffectHandlerError);
    expect(errors[0]?.message).toMatch(/No handler is registered for effect "store\/save"/);
  });

  it('runEffect of an effect with no handler errors with MissingEffectHandlerError', async () => {
    const { session } = effectSession();
    await expect(firstValueFrom(runEffect(session, Save({ id: 1 })))).rejects.toBeInstanceOf(MissingEffectHandlerError);
  });

  it('refuses a second handler for a type until the first is stopped', () => {
    const { session, fx } = effectSession();
    const first = fx.handle(Save, async () => 'a');
    expect(() => fx.handle(Save, async () => 'b')).toThrow(DuplicateEffectHandlerError);
    first.stop();
    first.stop();
    const errors = errorsOf(session);
    session.dispatch(request(Save({ id: 1 })));
    expect(errors[0]).toBeInstanceOf(MissingEffectHandlerError);
    expect(() => fx.handle(Save, async () => 'b')).not.toThrow();
  });
});

describe('cancellation aborts the handler signal', () => {
  it("on 'switch', when the next effect of the type arrives", () => {
    const Search = defineEffect('search/run', z.object({ q: z.string() }), { concurrency: 'switch' });
    const { session, fx } = effectSession();
    const reasons: unknown[] = [];
    const trace = typesOf(session);
    fx.handle(Search, untilAborted(reasons));
    session.dispatch(request(Search({ q: 'a' })));
    expect(reasons).toEqual([]);
    session.dispatch(request(Search({ q: 'ab' })));
    expect(reasons).toHaveLength(1);
    expect(reasons[0]).toBeInstanceOf(EffectCancelledError);
    expect(trace).toContain('rxslice.effect.cancelled');
  });

  it('on session.dispose(), without dispatching anything afterwards', () => {
    const Upload = defineEffect('file/upload');
    const { session, fx } = effectSession();
    const reasons: unknown[] = [];
    fx.handle(Upload, untilAborted(reasons));
    session.dispatch(request(Upload()));
    session.dispatch(request(Upload()));
    session.dispose();
    expect(reasons).toHaveLength(2);
    expect(reasons.every((r) => r instanceof EffectCancelledError)).toBe(true);
  });

  it('on stop() of the registration', () => {
    const Upload = defineEffect('file/upload');
    const { session, fx } = effectSession();
    const reasons: unknown[] = [];
    const registration = fx.handle(Upload, untilAborted(reasons));
    session.dispatch(request(Upload()));
    registration.stop();
    expect(reasons).toHaveLength(1);
  });

  it('on timeout (virtual time), failing the attempt with EffectTimeoutError', () => {
    const Slow = defineEffect('api/slow', undefined, { timeoutMs: 50 });
    const scheduler = new VirtualTimeScheduler();
    const session = createSession({ slices: [Requests], scheduler });
    const { handle } = installEffects(session);
    const reasons: unknown[] = [];
    const errors = errorsOf(session);
    handle(Slow, untilAborted(reasons));
    session.dispatch(request(Slow()));
    expect(reasons).toEqual([]);
    scheduler.flush();
    expect(scheduler.now()).toBe(50);
    expect(reasons).toHaveLength(1);
    expect(errors[0]?.cause).toBeInstanceOf(EffectTimeoutError);
    expect((errors[0]?.cause as EffectTimeoutError).message).toMatch(/did not finish within 50 ms/);
  });
});

describe('payloads and callbacks', () => {
  it('fails an effect whose payload does not match its schema without calling the handler', () => {
    const { session, fx } = effectSession();
    const errors = errorsOf(session);
    const trace = collect(session.committed$);
    let called = false;
    fx.handle(Save, async () => {
      called = true;
      return 'x';
    });
    session.dispatch(request({ type: 'store/save', payload: { id: 'not a number' } }));
    expect(called).toBe(false);
    expect(errors[0]).toMatchObject({ code: 'EFFECT_FAILED', stage: 'validation', attempts: 0 });
    expect(trace.at(-1)?.event.payload).toMatchObject({ kind: 'effect', attempts: 0, error: { code: 'INVALID_EVENT' } });
  });

  it('reports an onSuccess that throws (stage onSuccess); the effect still counts as succeeded', () => {
    const Broken = defineEffect('x/broken', undefined, {
      onSuccess: () => {
        throw new Error('mapping failed');
      },
    });
    const { session, fx } = effectSession();
    const errors = errorsOf(session);
    const trace = typesOf(session);
    fx.handle(Broken, () => of(1));
    session.dispatch(request(Broken()));
    expect(trace).toContain('rxslice.effect.succeeded');
    expect(errors[0]).toMatchObject({ stage: 'onSuccess' });
  });

  it('reports a compensate that throws or returns an invalid event, and then does not claim compensated', () => {
    const Bad = defineEvent('x/compensated', z.object({ n: z.number() }));
    const Throwing = defineEffect('x/throwing', undefined, {
      compensate: () => {
        throw new Error('no undo');
      },
    });
    const Invalid = defineEffect('x/invalid', undefined, { compensate: () => Bad({ n: 'one' as unknown as number }) });
    const session = createSession({ slices: [Requests], events: [Bad] });
    const errors = errorsOf(session);
    const trace = typesOf(session);
    handleEffect(session, Throwing, () => {
      throw new Error('boom');
    });
    handleEffect(session, Invalid, () => {
      throw new Error('boom');
    });
    session.dispatch(request(Throwing()));
    session.dispatch(request(Invalid()));
    expect(errors.map((e) => (e as { stage?: string }).stage ?? e.code)).toEqual(['handler', 'compensate', 'handler', 'INVALID_EVENT']);
    expect(trace).not.toContain('rxslice.effect.compensated');
  });

  it('dispatches the compensation with the effect and the last error', () => {
    const Charge = defineEffect('pay/charge', z.object({ id: z.number() }), {
      compensate: (effect, error) => SaveCompensated({ id: effect.payload.id * ((error as Error).message === 'declined' ? 10 : 1) }),
    });
    const { session, fx } = effectSession();
    const trace = collect(session.committed$);
    fx.handle(Charge, () => {
      throw new Error('declined');
    });
    session.dispatch(request(Charge({ id: 4 })));
    expect(trace.filter((c) => SaveCompensated.match(c.event)).map((c) => c.event.payload)).toEqual([{ id: 40 }]);
  });
});

describe('effects as data', () => {
  it('effects$ shows the effects reducers request, without running them', () => {
    const session = createSession({ slices: [Requests] });
    const requested = collect(effects$(session));
    const errors = errorsOf(session);
    session.dispatch(request(Save({ id: 1 })));
    session.dispatch(request(Save({ id: 2 })));
    expect(requested).toEqual([Save({ id: 1 }), Save({ id: 2 })]);
    // createSession wires the effect runtime: an effect without a handler is reported, never silently dropped
    expect(errors.map((e) => e.code)).toEqual(['MISSING_EFFECT_HANDLER', 'MISSING_EFFECT_HANDLER']);
  });

  it('the committed envelope carries the effects its reducers returned', () => {
    const session = createSession({ slices: [Requests] });
    const committed = collect(session.committed$);
    session.dispatch(request(Save({ id: 3 })));
    expect(committed[0]?.effects).toEqual([{ type: 'store/save', payload: { id: 3 } }]);
  });
});
