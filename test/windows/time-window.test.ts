import fc from 'fast-check';
import { VirtualTimeScheduler } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { createSession } from '../../src/index';
import { SliceWindow } from '../../src/windows/slice-window';
import { call, CallFinished, callsSlice } from './window-fixtures';

describe('SliceWindow.time (property)', () => {
  it('after each append, holds exactly the items at most maxAgeMs old', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 50 }), fc.array(fc.integer({ min: 0, max: 30 }), { maxLength: 80 }), (maxAgeMs, gaps) => {
        const scheduler = new VirtualTimeScheduler();
        const session = createSession({ slices: [callsSlice(SliceWindow.time({ maxAgeMs }))], scheduler });
        const times: number[] = [];
        let now = 0;
        gaps.forEach((gap, id) => {
          now += gap;
          scheduler.frame = now;
          session.dispatch(CallFinished(call(id)));
          times.push(now);
          const expected = times.map((t, i) => ({ t, i })).filter(({ t }) => now - t <= maxAgeMs).map(({ i }) => i);
          expect(session.read<{ id: number }>('calls').map((c) => c.id)).toEqual(expected);
        });
      }),
    );
  });
});
