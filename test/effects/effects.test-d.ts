import { of, type Observable } from 'rxjs';
import { describe, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import { defineEffect, type Effect, type EffectInstanceOptions, type InferEffect, type InferEffectResult } from '../../src/effects/define-effect';
import { RetryPolicy } from '../../src/effects/retry-policy';
import type { EffectContext } from '../../src/effects/effect-handler';
import { handleEffect, runEffect } from '../../src/effects/handle-effect';
import type { Epic } from '../../src/effects/epic';
import { createSession, defineEvent, ofType, type CommittedEnvelope, type Event } from '../../src/index';

const Saved = defineEvent('store/saved', z.object({ id: z.number(), etag: z.string() }));
const Save = defineEffect('store/save', z.object({ id: z.number() }), {
  onSuccess: (effect, etag: string) => Saved({ id: effect.payload.id, etag }),
});
const Ping = defineEffect('net/ping');
const session = createSession({ slices: [] });

describe('effect types', () => {
  it('takes per-instance options as a second argument and keeps the effect type', () => {
    expectTypeOf(Save({ id: 1 }, { retry: RetryPolicy.fixed(5, 1), timeoutMs: 10 })).toEqualTypeOf<Effect<'store/save', { id: number }>>();
    expectTypeOf(Ping(undefined, { timeoutMs: 10 })).toEqualTypeOf<Effect<'net/ping', void>>();
    expectTypeOf(Save({ id: 1 }).options).toEqualTypeOf<EffectInstanceOptions | undefined>();
    // @ts-expect-error concurrency belongs to the effect type (defineEffect), not to an instance
    Save({ id: 1 }, { concurrency: 'switch' });
    // @ts-expect-error timeoutMs is a number of milliseconds
    Save({ id: 1 }, { timeoutMs: '10' });
  });

  it('carries the payload and the result type inferred from onSuccess', () => {
    expectTypeOf(Save({ id: 1 })).toEqualTypeOf<Effect<'store/save', { id: number }>>();
    expectTypeOf<InferEffect<typeof Save>>().toEqualTypeOf<Effect<'store/save', { id: number }>>();
    expectTypeOf<InferEffectResult<typeof Save>>().toEqualTypeOf<string>();
    expectTypeOf<InferEffectResult<typeof Ping>>().toEqualTypeOf<unknown>();
    // @ts-expect-error the payload must match the schema
    Save({ id: 'x' });
  });

  it('types the handler from the effect definition', () => {
    handleEffect(session, Save, async (effect, ctx) => {
      expectTypeOf(effect.payload.id).toEqualTypeOf<number>();
      expectTypeOf(ctx).toEqualTypeOf<EffectContext<unknown>>();
      return `etag-${effect.payload.id}`;
    });
    handleEffect(session, Save, () => of('etag'));
    // @ts-expect-error onSuccess declared a string result
    handleEffect(session, Save, async () => 42);
    handleEffect(session, Ping, async () => 42);
    expectTypeOf(runEffect(session, Ping())).toEqualTypeOf<Observable<unknown>>();
  });

  it('narrows epic input with ofType and requires events as output', () => {
    const epic: Epic<{ base: number }> = (events$, _state, deps) => {
      expectTypeOf(events$).toEqualTypeOf<Observable<CommittedEnvelope>>();
      return events$.pipe(ofType(Saved), (s) => {
        expectTypeOf(s).toEqualTypeOf<Observable<import('../../src/index').Envelope<ReturnType<typeof Saved>>>>();
        return of(Saved({ id: deps.base, etag: 'x' }));
      });
    };
    expectTypeOf(epic).returns.toEqualTypeOf<Observable<Event>>();
    // @ts-expect-error an epic emits events, not strings
    const bad: Epic = () => of('not an event');
    void bad;
  });
});
