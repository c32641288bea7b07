import { createSessionComposables } from 'rxslice/vue';
import { createTodoSession } from '../todos';

export const session = createTodoSession();
/** Composables typed by this session: `useDispatch()` accepts only its events. */
export const { useSlice, useComputed, useDispatch } = createSessionComposables(session);
