/**
 * The Vue example's state: a log slice of todos, a state slice holding the filter, and a computed
 * slice counting what is left. `createSessionComposables(session)` types the composables by this
 * session, so `useDispatch()` accepts only `todo/added`, `todo/toggled` and `filter/changed`.
 */
import { z } from 'zod';
import { append, createSession, defineComputed, defineEvent, defineSlice, replace } from '../../src/index';
import { createSessionComposables } from '../../src/vue/index';

export const TodoAdded = defineEvent('todo/added', z.object({ text: z.string().min(1) }));
export const TodoToggled = defineEvent('todo/toggled', z.object({ index: z.number().int() }));

export const Todos = defineSlice('todos', {
  policy: 'state',
  schema: z.object({ text: z.string(), done: z.boolean() }),
  reducers: ({ on }) => [
    on(TodoAdded, (_view, e) => append({ text: e.payload.text, done: false })),
    on(TodoToggled, (view, e) => replace(view.all().map((t, i) => (i === e.payload.index ? { ...t, done: !t.done } : t)))),
  ],
});
export const Remaining = defineComputed('remaining', [Todos], (todos) => todos.filter((t) => !t.done).length);

export function createTodoSession() {
  return createSession({ slices: [Todos] });
}
export type TodoSession = ReturnType<typeof createTodoSession>;
export const session = createTodoSession();
export const { useSlice, useComputed, useDispatch } = createSessionComposables(session);
