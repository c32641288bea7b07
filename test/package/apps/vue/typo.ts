// Must fail `tsc`: the typed composable refuses an event type the session does not have.
import { useDispatch } from './session';

export function useTypo(): void {
  const dispatch = useDispatch();
  dispatch({ type: 'todo/addd', payload: { text: 'typo' } });
}
