import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { all, isCompositeEffect, race, sequence } from '../../src/effects/compose';
import { defineEffect } from '../../src/effects/define-effect';
import { InvalidEffectDefinitionError } from '../../src/effects/errors';
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
