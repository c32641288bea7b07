import type { ShallowRef } from 'vue';
import { describe, expectTypeOf, it } from 'vitest';
import type { Session } from '../../src/index';
import { createSessionComposables, useComputed, useDispatch, useLatest, useMachine, useSelector, useSession, useSlice } from '../../src/vue/index';
import { Door, makeSession, MessageAdded, Messages, TotalHundreds, Usage } from '../react/fixtures';

type Message = { role: string; text: string };
type AppSession = ReturnType<typeof makeSession>;
const session = makeSession();

describe('rxslice/vue types', () => {
  it('return read-only shallow refs of the slice, computed, selection and machine types', () => {
    expectTypeOf(useSlice(Messages)).toEqualTypeOf<Readonly<ShallowRef<readonly Message[]>>>();
    expectTypeOf(useLatest(Usage).value).toEqualTypeOf<{ input: number; output: number } | undefined>();
    expectTypeOf(useComputed(TotalHundreds).value).toEqualTypeOf<number>();
    expectTypeOf(useSelector(Messages, (m) => m.length).value).toEqualTypeOf<number>();
    expectTypeOf(useSelector(TotalHundreds, (n) => n > 1).value).toEqualTypeOf<boolean>();
    // @ts-expect-error the selector of a slice gets its items, not one item
    useSelector(Messages, (m: Message) => m.text);
    expectTypeOf(useMachine(Door).value.configuration).toEqualTypeOf<readonly ('closed' | 'open')[]>();
    // @ts-expect-error not a state of Door
    useMachine(Door).value.matches('ajar');
    // @ts-expect-error the refs are read-only: state changes by dispatching
    useSlice(Messages).value = [];
  });

  it('useSession and useDispatch take the session type, or get it once with withTypes', () => {
    expectTypeOf(useSession()).toEqualTypeOf<Session>();
    expectTypeOf(useSession<AppSession>()).toEqualTypeOf<AppSession>();
    expectTypeOf(useDispatch<AppSession>()).toEqualTypeOf<AppSession['dispatch']>();
    expectTypeOf(useSession.withTypes<AppSession>()()).toEqualTypeOf<AppSession>();
    const useAppDispatch = useDispatch.withTypes<AppSession>();
    expectTypeOf(useAppDispatch()).toEqualTypeOf<AppSession['dispatch']>();
    useAppDispatch()(MessageAdded({ role: 'user', text: 'hi' }));
    // @ts-expect-error 'chat/messageAdd' is not an event the session declares (it is 'chat/messageAdded')
    useAppDispatch()({ type: 'chat/messageAdd', payload: { role: 'user', text: 'hi' } });
  });

  it('createSessionComposables(session) types every composable by that session: a misspelled event does not compile', () => {
    const composables = createSessionComposables(session);
    expectTypeOf(composables.useSession()).toEqualTypeOf<AppSession>();
    const dispatch = composables.useDispatch();
    dispatch(MessageAdded({ role: 'user', text: 'hi' }));
    dispatch({ type: 'door/opened', payload: {} });
    // @ts-expect-error 'door/opend' is misspelled: the session declares 'door/opened'
    dispatch({ type: 'door/opend', payload: {} });
    // @ts-expect-error the payload of chat/messageAdded has a role
    dispatch({ type: 'chat/messageAdded', payload: { text: 'hi' } });
    expectTypeOf(composables.useSlice(Messages).value).toEqualTypeOf<readonly Message[]>();
    expectTypeOf(composables.useSelector(Usage, (u) => u.length).value).toEqualTypeOf<number>();
    expectTypeOf(composables.useMachine(Door).value.done).toEqualTypeOf<boolean>();
    // The untyped default accepts the misspelling: that is what the typed forms are for.
    useDispatch()({ type: 'door/opend', payload: {} });
  });
});
