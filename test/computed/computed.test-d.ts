import { describe, expectTypeOf, it } from 'vitest';
import { createSession, type SliceHandle } from '../../src/index';
import { computed, type ComputedHandle } from '../../src/computed/computed';
import { computedFamily, type ComputedFamily } from '../../src/computed/computed-family';
import { defineComputed, type ComputedDef, type InferComputed } from '../../src/computed/define-computed';
import { defineComputedFamily } from '../../src/computed/define-computed-family';
import { Count, Notes } from './computed-fixtures';

describe('computed types', () => {
  it('passes each source to project with its type: slice items as readonly arrays, computed values as is', () => {
    const Total = defineComputed('total', [Count], (count) => {
      expectTypeOf(count).toEqualTypeOf<readonly { n: number }[]>();
      return count.length;
    });
    const Summary = defineComputed('summary', [Total, Notes], (total, notes) => {
      expectTypeOf(total).toEqualTypeOf<number>();
      expectTypeOf(notes).toEqualTypeOf<readonly { text: string }[]>();
      return { total, notes: notes.length };
    });
    expectTypeOf(Summary).toEqualTypeOf<ComputedDef<'summary', { total: number; notes: number }>>();
    expectTypeOf<InferComputed<typeof Summary>>().toEqualTypeOf<{ total: number; notes: number }>();
    const session = createSession({ slices: [Count, Notes] });
    expectTypeOf(computed(session, Summary)).toEqualTypeOf<ComputedHandle<{ total: number; notes: number }>>();
    expectTypeOf(session.computed(Summary)).toEqualTypeOf<ComputedHandle<{ total: number; notes: number }>>();
    // @ts-expect-error -- project takes one argument per source, not more
    defineComputed('bad', [Count], (_count, _extra: number) => 0);
  });

  it('types an incremental fold from its slice and init: appended items as a readonly array of the slice item', () => {
    const Texts = defineComputed.incremental('texts', Notes, {
      init: () => ({ count: 0, last: '' }),
      fold: (value, appended) => {
        expectTypeOf(value).toEqualTypeOf<{ count: number; last: string }>();
        expectTypeOf(appended).toEqualTypeOf<readonly { text: string }[]>();
        return { count: value.count + appended.length, last: appended.at(-1)?.text ?? value.last };
      },
    });
    expectTypeOf(Texts).toEqualTypeOf<ComputedDef<'texts', { count: number; last: string }>>();
    // @ts-expect-error -- fold must return the value's type
    defineComputed.incremental('bad', Notes, { init: () => 0, fold: () => 'x' });
  });

  it('is read-only: a computed declaration is not a slice declaration', () => {
    const Total = defineComputed('total', [Count], (count) => count.length);
    const session = createSession({ slices: [Count] });
    // @ts-expect-error -- computed slices cannot be read as writable slices (no seed, clear, register)
    const handle: SliceHandle<number> = session.slice(Total);
    void handle;
    // @ts-expect-error -- nor registered as slices of a session
    createSession({ slices: [Total] });
  });

  it('types family arguments and members', () => {
    const Longer = defineComputedFamily('longer', [Notes], (min: number) => (notes) => notes.filter((x) => x.text.length > min));
    const session = createSession({ slices: [Notes] });
    const longer = computedFamily(session, Longer);
    expectTypeOf(longer(3)).toEqualTypeOf<ComputedHandle<{ text: string }[]>>();
    expectTypeOf(session.computed(Longer)).toEqualTypeOf<ComputedFamily<number, { text: string }[]>>();
    // @ts-expect-error -- a slice is opened with session.slice, not session.computed
    session.computed(Notes);
    // @ts-expect-error -- the argument is a number
    longer('3');
  });
});
