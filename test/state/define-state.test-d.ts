import { describe, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import { add, defineState, field, overwrite, type StateValue } from '../../src/index';

describe('state types', () => {
  it('types the value and the partial updates field by field', () => {
    const sum = (a: number, b: { by: number }) => a + b.by;
    const S = defineState('s', {
      status: field(z.enum(['running', 'done']), { default: 'running' }),
      log: field(z.array(z.string()), { reducer: add, default: [] }),
      total: field(z.number(), { reducer: sum, update: z.object({ by: z.number() }), default: 0 }),
    });
    expectTypeOf<StateValue<typeof S.fields>>().toEqualTypeOf<{ readonly status: 'running' | 'done'; readonly log: string[]; readonly total: number }>();
    S.update({ status: 'done', log: ['a'], total: { by: 2 } });
    S.update({ total: overwrite(10) });
    // @ts-expect-error not a status
    S.update({ status: 'paused' });
    // @ts-expect-error the custom reducer takes { by }
    S.update({ total: 3 });
    // @ts-expect-error no such field
    S.update({ other: 1 });
  });
});
