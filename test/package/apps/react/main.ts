import { createElement as h, useState, type FormEvent } from 'react';
import { createRoot } from 'react-dom/client';
import { Remaining, TodoAdded, Todos, TodoToggled } from '../todos';
import { useComputed, useDispatch, useSlice } from './session';

function TodoApp() {
  const todos = useSlice(Todos);
  const remaining = useComputed(Remaining);
  const dispatch = useDispatch();
  const [draft, setDraft] = useState('');
  const add = (e: FormEvent) => {
    e.preventDefault();
    if (draft.trim() === '') return;
    dispatch(TodoAdded({ text: draft.trim() }));
    setDraft('');
  };
  return h(
    'main',
    null,
    h('h1', null, 'rxslice + React'),
    h('form', { onSubmit: add }, h('input', { id: 'draft', value: draft, onChange: (e) => setDraft(e.target.value) }), h('button', { id: 'add', type: 'submit' }, 'Add')),
    h('p', { id: 'remaining' }, `${remaining} of ${todos.length} left`),
    h('ul', { id: 'todos' }, todos.map((todo, index) => h('li', { key: index, className: todo.done ? 'done' : '', onClick: () => dispatch(TodoToggled({ index })) }, todo.text))),
  );
}

createRoot(document.getElementById('root') as HTMLElement).render(h(TodoApp));
