/**
 * The Vue example page: `rxslice/vue` composables in a component (render functions, so the runtime
 * build of Vue suffices). Typing in the box and pressing "Add" dispatches `todo/added`; clicking a
 * todo dispatches `todo/toggled`; the list (a slice) and the count left (a computed slice) follow.
 * Built by `build.ts` (esbuild); `npm run test:e2e` drives it in headless Chromium.
 */
import { createApp, defineComponent, h, ref } from 'vue';
import { Remaining, session, TodoAdded, Todos, TodoToggled, useComputed, useDispatch, useSlice } from './session';

let renders = 0;

const TodoApp = defineComponent(() => {
  const todos = useSlice(Todos);
  const remaining = useComputed(Remaining);
  const dispatch = useDispatch();
  const draft = ref('');
  const add = () => {
    if (draft.value.trim() === '') return;
    dispatch(TodoAdded({ text: draft.value.trim() }));
    draft.value = '';
  };
  return () => {
    renders++;
    return h('main', [
      h('h1', 'rxslice + Vue'),
      h('form', { onSubmit: (e: Event) => (e.preventDefault(), add()) }, [
        h('input', { id: 'draft', value: draft.value, onInput: (e: Event) => (draft.value = (e.target as HTMLInputElement).value), placeholder: 'What next?' }),
        h('button', { id: 'add', type: 'submit' }, 'Add'),
      ]),
      h('p', { id: 'remaining' }, `${remaining.value} of ${todos.value.length} left`),
      h(
        'ul',
        { id: 'todos' },
        todos.value.map((todo, index) => h('li', { key: index, class: { done: todo.done }, onClick: () => dispatch(TodoToggled({ index })) }, todo.text)),
      ),
    ]);
  };
});

createApp(TodoApp).mount('#root');
// For the browser test: how often the component rendered, and the session itself.
Object.assign(globalThis, { vueExample: { session, renders: () => renders } });
