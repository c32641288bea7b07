import { describe, expect, it } from 'vitest';
import { compileFixture } from './compile-fixture';

/**
 * Pins the compile error of a misspelled event type: through `session.dispatch`, the React hooks
 * of `createSessionHooks` and the Vue composables of `createSessionComposables`, it names the
 * misspelled type and suggests the declared one (it used to say `{ type: string; ... }` is not
 * assignable, and that a symbol-keyed property of `SliceCommand` was missing).
 */
const fixture = `
import { z } from 'zod';
import { append, createSession, defineEvent, defineSlice, InitializeSlice } from '../../src/index';
import { createSessionHooks } from '../../src/react/index';
import { createSessionComposables } from '../../src/vue/index';

const TodoAdded = defineEvent('todo/added', z.object({ text: z.string() }));
const TodoToggled = defineEvent('todo/toggled', z.object({ index: z.number() }));
const Todos = defineSlice('todos', { policy: 'log', reducers: ({ on }) => [on(TodoAdded, (_v, e) => append(e.payload.text)), on(TodoToggled, () => append('x'))] });
const session = createSession({ slices: [Todos] });
const react = createSessionHooks(session);
const vue = createSessionComposables(session);

session.dispatch({ type: 'todo/addd', payload: { text: 'session' } });
export const viaReact = () => react.useDispatch()({ type: 'todo/addd', payload: { text: 'react' } });
export const viaVue = () => vue.useDispatch()({ type: 'todo/addd', payload: { text: 'vue' } });
session.dispatch({ type: 'todo/added', payload: { text: 'fine' } });
session.dispatch(InitializeSlice(Todos, ['seeded']));
`;

describe('a misspelled event type given to dispatch', () => {
  it('is a compile error that names it and suggests the declared type (session, React hooks, Vue composables)', () => {
    const found = compileFixture('test/types/dispatch-typo-fixture.ts', fixture);
    const lines = fixture.split('\n');
    expect(found.map((d) => lines[d.line])).toEqual([
      expect.stringContaining("text: 'session'"),
      expect.stringContaining("text: 'react'"),
      expect.stringContaining("text: 'vue'"),
    ]);
    for (const { text } of found) {
      expect(text).toContain(`Type '"todo/addd"' is not assignable to type`);
      expect(text).toContain(`Did you mean '"todo/added"'?`);
    }
  }, 120_000);
});
