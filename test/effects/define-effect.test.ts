import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { all, isCompositeEffect, race, sequence } from '../../src/effects/compose';
import { defineEffect } from '../../src/effects/define-effect';
import { InvalidEffectDefinitionError, InvalidEffectOptionsError } from '../../src/effects/errors';
import { RetryPolicy } from '../../src/effects/retry-policy';
import { ReservedEventTypeError } from '../../src/index';

describe('defineEffect', () => {
  it('makes plain-data effects and carries its options', () => {
    const retry = RetryPolicy.fixed(10, 1);
    const SendEmail = defineEffect('email/send', z.object({ to: z.string() }), { retry, timeoutMs: 100, concurrency: 'concat' });
    const effect = SendEmail({ to: 'a@b.c' });
    expect(effect).toEqual({ type: 'email/send', payload: { to: 'a@b.c' } });
    expect(JSON.parse(JSON.stringify(effect))).toEqual(effect);
    expect(SendEmail.type).toBe('email/send');
    expect(SendEmail.match(effect)).toBe(true);
    expect(SendEmail.match({ type: 'other' })).toBe(false);
    expect(SendEmail.options).toEqual({ retry, timeoutMs: 100, concurrency: 'concat' });
    expect(Object.isFrozen(SendEmail.options)).toBe(true);
  });

  it('works without schema or options', () => {
    const Ping = defineEffect('net/ping');
    expect(Ping()).toEqual({ type: 'net/ping', payload: undefined });
    expect(Ping.options).toEqual({});
    expect(Ping.schema).toBeUndefined();
  });

  it('rejects the reserved prefix, a non-positive timeout and an unknown concurrency', () => {
    expect(() => defineEffect('rxslice.effect.mine')).toThrow(ReservedEventTypeError);
    expect(() => defineEffect('a/b', undefined, { timeoutMs: 0 })).toThrow(InvalidEffectDefinitionError);
    expect(() => defineEffect('a/b', undefined, { concurrency: 'parallel' as never })).toThrow(/concurrency must be one of/);
  });
});

describe('composition values', () => {
  const A = defineEffect('x/a');
  const B = defineEffect('x/b');

  it('all, race and sequence are effects holding their children', () => {
    expect(all([A(), B()])).toEqual({ type: 'rxslice.effect.all', payload: { effects: [A(), B()] } });
    expect(race([A(), B()])).toEqual({ type: 'rxslice.effect.race', payload: { effects: [A(), B()] } });
    const step = () => B();
    expect(sequence([A(), step]).payload.steps).toEqual([A(), step]);
    expect(isCompositeEffect(all([]))).toBe(true);
    expect(isCompositeEffect(A())).toBe(false);
  });

  it('race needs at least one effect', () => {
    expect(() => race([])).toThrow(InvalidEffectDefinitionError);
  });
});

describe('effect instances with their own options: Fx(payload, { retry, timeoutMs })', () => {
  const Charge = defineEffect('shop/charge', z.object({ order: z.number() }), { retry: RetryPolicy.fixed(10, 1), timeoutMs: 100 });

  it('carries its retry as a spec and its timeout as plain, frozen data that survives JSON', () => {
    const effect = Charge({ order: 1 }, { retry: RetryPolicy.exponential({ maxAttempts: 4, initialDelayMs: 50, maxDelayMs: 200, jitter: 'equal', seed: 7 }), timeoutMs: 2_000 });
    expect(effect).toEqual({
      type: 'shop/charge',
      payload: { order: 1 },
      options: { retry: { kind: 'exponential', maxAttempts: 4, initialDelayMs: 50, factor: 2, maxDelayMs: 200, jitter: 'equal', seed: 7 }, timeoutMs: 2_000 },
    });
    expect(Object.isFrozen(effect.options)).toBe(true);
    expect(JSON.parse(JSON.stringify(effect))).toEqual(effect);
    expect(Charge.match(effect)).toBe(true);
    // The type's options are untouched.
    expect(Charge.options.timeoutMs).toBe(100);
  });

  it('takes a retry spec as well as a policy, and leaves options out when none is given', () => {
    expect(Charge({ order: 1 }, { retry: { kind: 'fixed', delayMs: 5, count: 2 } }).options).toEqual({ retry: { kind: 'fixed', delayMs: 5, count: 2 } });
    expect(Charge({ order: 1 }, { retry: RetryPolicy.none }).options).toEqual({ retry: { kind: 'none' } });
    expect(Charge({ order: 1 }, {})).toEqual({ type: 'shop/charge', payload: { order: 1 } });
    expect(Charge({ order: 1 })).toEqual({ type: 'shop/charge', payload: { order: 1 } });
    const Ping = defineEffect('net/ping');
    expect(Ping(undefined, { timeoutMs: 5 })).toEqual({ type: 'net/ping', payload: undefined, options: { timeoutMs: 5 } });
  });

  it.each([
    ['timeoutMs 0', { timeoutMs: 0 }, /timeoutMs must be a finite number > 0/],
    ['timeoutMs Infinity', { timeoutMs: Number.POSITIVE_INFINITY }, /timeoutMs must be a finite number > 0/],
    ['timeoutMs as a string', { timeoutMs: '5' }, /timeoutMs must be a finite number > 0/],
    ['a policy with a random function', { retry: RetryPolicy.exponential({ maxAttempts: 2, initialDelayMs: 1, jitter: 'full', random: () => 0.5 }) }, /cannot travel as data.*seed/],
    ['a hand-written policy', { retry: { maxAttempts: 2, baseDelayMs: () => 1, delayMs: () => 1, createRandom: () => Math.random } }, /cannot travel as data/],
    ['an unknown spec kind', { retry: { kind: 'forever' } }, /kind "exponential", "fixed" or "none"/],
    ['a spec the constructor refuses', { retry: { kind: 'fixed', delayMs: -1, count: 1 } }, /delayMs must be ≥ 0/],
    ['an option of the effect type', { concurrency: 'switch' }, /unknown option\(s\) "concurrency"; concurrency, compensate and onSuccess belong to defineEffect/],
    ['null options', null, /expected an object/],
  ])('refuses %s with InvalidEffectOptionsError', (_label, options, message) => {
    const make = () => (Charge as unknown as (p: unknown, o: unknown) => unknown)({ order: 1 }, options);
    expect(make).toThrow(InvalidEffectOptionsError);
    expect(make).toThrow(message);
    try {
      make();
    } catch (error) {
      expect((error as InvalidEffectOptionsError).code).toBe('INVALID_EFFECT_OPTIONS');
      expect((error as InvalidEffectOptionsError).effectType).toBe('shop/charge');
    }
  });
});
