import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineEvent, ReservedEventTypeError, isRxSliceError } from '../../src/index';

describe('defineEvent', () => {
  const StepAdded = defineEvent('plan/stepAdded', z.object({ step: z.string() }));

  it('makes creators with type, schema and a type guard', () => {
    const e = StepAdded({ step: 'write tests' });
    expect(e).toEqual({ type: 'plan/stepAdded', payload: { step: 'write tests' } });
    expect(StepAdded.type).toBe('plan/stepAdded');
    expect(StepAdded.schema).toBeDefined();
    expect(StepAdded.match(e)).toBe(true);
    expect(StepAdded.match({ type: 'plan/other' })).toBe(false);
    expect(String(StepAdded)).toBe('plan/stepAdded');
  });

  it('makes payload-less creators without a schema', () => {
    const Reset = defineEvent('plan/reset');
    expect(Reset()).toEqual({ type: 'plan/reset', payload: undefined });
    expect(Reset.schema).toBeUndefined();
  });

  it('rejects the reserved rxslice. prefix with a clear error', () => {
    expect(() => defineEvent('rxslice.mine')).toThrow(ReservedEventTypeError);
    try {
      defineEvent('rxslice.mine');
    } catch (e) {
      expect(isRxSliceError(e)).toBe(true);
      expect((e as ReservedEventTypeError).code).toBe('RESERVED_EVENT_TYPE');
      expect((e as Error).message).toMatch(/domain\/pastTenseVerb/);
    }
  });
});
