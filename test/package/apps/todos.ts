/**
 * The todo store both apps use, written as a user of the installed package writes it (imports
 * from 'rxslice'): a state slice of todos and a computed slice counting what is left. The React
 * app makes a session (`createSession`, the README's quick start), the Vue app a store
 * (`createStore`, the README's "In a browser bundle"), so the check measures both.
 */
import { z } from 'zod';
import { append, createSession, createStore, defineComputed, defineEvent, defineSlice, replace } from 'rxslice';

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

export const createTodoSession = () => createSession({ slices: [Todos] });
export const createTodoStore = () => createStore({ slices: [Todos] });
