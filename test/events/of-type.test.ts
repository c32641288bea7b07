import { from, toArray } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineEvent, ofType, type Envelope } from '../../src/index';

describe('ofType', () => {
  it('keeps only envelopes of the given creators, in order', () => {
    const A = defineEvent('t/a', z.object({ n: z.number() }));
    const B = defineEvent('t/b');
    const C = defineEvent('t/c');
    const envs: Envelope[] = [A({ n: 1 }), B(), C(), A({ n: 2 })].map((event, i) => ({ seq: i + 1, at: 0, event, meta: {} }));
    let out: number[] = [];
    from(envs)
      .pipe(ofType(A, C), toArray())
      .subscribe((list) => (out = list.map((e) => e.seq)));
    expect(out).toEqual([1, 3, 4]);
  });
});
