import { TestScheduler } from 'rxjs/testing';
import { beforeEach, describe, expect, it } from 'vitest';
import { createSession } from '../src/index';
import { computed } from '../src/computed/computed';
import { defineComputed } from '../src/computed/define-computed';
import { dispatchFrom } from '../src/testing/index';
import { Both, Bumped, Count, counted, Noted, Notes } from '../test/computed/computed-fixtures';

let scheduler: TestScheduler;
beforeEach(() => {
  scheduler = new TestScheduler((actual, expected) => expect(actual).toEqual(expected));
});

const n = (count: readonly { n: number }[]): number => count.at(-1)?.n ?? 0;
const A = defineComputed('a', [Count], (count) => n(count) + 1);
const B = defineComputed('b', [Count, Notes], (count, notes) => n(count) * 10 + notes.length);

describe('computed slices in virtual time', () => {
  it('a diamond emits once per event that changes it, and nothing for the others', () => {
    scheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
      const project = counted((a: number, b: number) => `${a}/${b}`);
      const C = defineComputed('c', [A, B], project);
      const session = createSession({ slices: [Count, Notes], scheduler });
      const source = cold('a 4ms b 4ms c 4ms d|', {
        a: Bumped({ by: 1 }),
        b: Noted({ text: 'x' }),
        c: Both({ by: 1, text: 'y' }),
        d: Bumped({ by: 0 }), // Count changes version but A and B recompute to equal numbers: C is not even recomputed
      });
      // values: 1/0 on subscribe, 2/10 at 0, 2/11 at 5, 3/22 at 10, nothing at 15
      expectObservable(computed(session, C).value$, '^ 30ms !').toBe('(xa) 1ms b 4ms c', { x: '1/0', a: '2/10', b: '2/11', c: '3/22' });
      dispatchFrom(session, source).subscribe();
      expectSubscriptions(source.subscriptions).toBe('^ 15ms !');
      scheduler.schedule(() => expect(project.calls).toBe(4), 20); // on subscribe, at 0, 5 and 10
    });
  });

  it('holds emissions until a batch ends, then emits once', () => {
    scheduler.run(({ expectObservable }) => {
      const C = defineComputed('c', [A, B], (a: number, b: number) => `${a}/${b}`);
      const session = createSession({ slices: [Count, Notes], scheduler });
      scheduler.schedule(() => {
        session.batch(() => {
          session.dispatch(Bumped({ by: 1 }));
          session.dispatch(Noted({ text: 'x' }));
          session.dispatch(Bumped({ by: 1 }));
        });
      }, 5);
      expectObservable(computed(session, C).value$).toBe('x 4ms y', { x: '1/0', y: '3/21' });
    });
  });
});
