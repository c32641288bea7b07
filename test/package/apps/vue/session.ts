import { createSessionComposables } from 'rxslice/vue';
import { createTodoStore } from '../todos';

export const session = createTodoStore();
/** Composables typed by this store: `useDispatch()` accepts only its events. */
export const { useSlice, useComputed, useDispatch } = createSessionComposables(session);
