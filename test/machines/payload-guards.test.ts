import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { append, createSession, defineEvent, defineSlice, replace } from '../../src/index';
import { defineMachine, InvalidTransitionError } from '../../src/machines/index.js';

// Issue 9 with the plain defineMachine API (no setupMachine): each of these failed before the machine decided first.
const Add = defineEvent('p/stepAdded', z.object({ id: z.string() }));
const Upd = defineEvent('p/stepUpdated', z.object({ id: z.string() }));
const Finished = defineEvent('p/finished');
const Steps = defineSlice('steps', {
  policy: 'state',
  schema: z.object({ id: z.string(), done: z.boolean() }),
  reducers: ({ on }) => [
    on(Add, (_v, e) => append({ id: e.payload.id, done: false })),
    on(Upd, (v, e) => {
      const all = v.all();
      const i = all.findIndex((s) => s.id === e.payload.id);
      const s = all[i]!;
      return replace(all.toSpliced(i, 1, { id: s.id, done: true }));
    }),
  ],
});
const M = defineMachine('p', {
  initial: 'active',
  states: {
    active: {
      on: {
        'p/stepAdded': {},
        'p/stepUpdated': { guard: ({ event }) => (event.payload as { id: string }).id !== 'missing' },
        'p/finished': 'done',
      },
    },
    done: { type: 'final' },
  },
});

describe('payload guards with plain defineMachine (issue 9)', () => {
  it('availableTransitions lists the payload-guarded event', () => {
    const s = createSession({ slices: [Steps] });
    const m = s.install(M);
    expect(m.availableTransitions().map((t) => t.event)).toContain('p/stepUpdated');
  });
  it('a rejected event fails with InvalidTransitionError, not the reducer TypeError', () => {
    const s = createSession({ slices: [Steps] });
    s.install(M);
    expect(() => s.dispatch(Upd({ id: 'missing' }))).toThrow(InvalidTransitionError);
  });
  it("after done, 'throw' throws", () => {
    const s = createSession({ slices: [Steps], events: [Finished] });
    s.install(M);
    s.dispatch(Finished());
    expect(() => s.dispatch(Add({ id: 'x' }))).toThrow(InvalidTransitionError);
  });
});
