import { createSessionHooks } from 'rxslice/react';
import { createTodoSession } from '../todos';

export const session = createTodoSession();
/** Hooks typed by this session: `useDispatch()` accepts only its events. */
export const { useSlice, useComputed, useDispatch } = createSessionHooks(session);
