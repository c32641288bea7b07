import { createApp, defineComponent, h, ref } from 'vue';
import { Remaining, TodoAdded, Todos, TodoToggled } from '../todos';
import { useComputed, useDispatch, useSlice } from './session';

const TodoApp = defineComponent(() => {
  const todos = useSlice(Todos);
  const remaining = useComputed(Remaining);
  const dispatch = useDispatch();
  const draft = ref('');
  const add = (e: Event) => {
    e.preventDefault();
    if (draft.value.trim() === '') return;
    dispatch(TodoAdded({ text: draft.value.trim() }));
    draft.value = '';
  };
  return () =>
    h('main', [
      h('h1', 'rxslice + Vue'),
      h('form', { onSubmit: add }, [
        h('input', { id: 'draft', value: draft.value, onInput: (e: Event) => (draft.value = (e.target as HTMLInputElement).value) }),
        h('button', { id: 'add', type: 'submit' }, 'Add'),
      ]),
      h('p', { id: 'remaining' }, `${remaining.value} of ${todos.value.length} left`),
      h('ul', { id: 'todos' }, todos.value.map((todo, index) => h('li', { key: index, class: { done: todo.done }, onClick: () => dispatch(TodoToggled({ index })) }, todo.text))),
    ]);
});

createApp(TodoApp).mount('#root');
