import { describe, expectTypeOf, it } from 'vitest';
import { defineSlice, type SliceWindowPolicy } from '../../src/index';
import { EvictionPolicy } from '../../src/windows/eviction-policy';
import { SliceWindow } from '../../src/windows/slice-window';
import { Call } from './window-fixtures';

describe('window types', () => {
  it('infers the item type from the slice in predicates, also inside composites', () => {
    const Calls = defineSlice('calls', {
      policy: 'log',
      schema: Call,
      window: SliceWindow.composite(
        // two generic calls deep, TypeScript does not carry the slice's item type into priority's parameter: annotate it
        SliceWindow.count(10, { eviction: EvictionPolicy.priority((c: Call) => c.priority) }),
        SliceWindow.predicate((c) => c.failed, 5),
      ),
    });
    expectTypeOf(Calls.window).toEqualTypeOf<SliceWindowPolicy<Call> | undefined>();
  });

  it('rejects windows over another item type', () => {
    defineSlice('calls', {
      policy: 'log',
      schema: Call,
      // @ts-expect-error -- the predicate reads a field that calls do not have
      window: SliceWindow.predicate((c: { size: number }) => c.size > 1, 5),
    });
  });
});
