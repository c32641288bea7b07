import type { Signal } from '@angular/core';
import { describe, expectTypeOf, it } from 'vitest';
import { injectComputed, injectComputedFamily, injectDispatch, injectLatest, injectMachine, injectSession, injectSlice } from '../../src/angular/index';
import type { Session } from '../../src/index';
import { createSessionHooks, useComputed, useComputedFamily, useDispatch, useLatest, useMachine, useSelector, useSession, useSlice } from '../../src/react/index';
import { Door, DoorOpened, makeSession, MessageAdded, Messages, MessagesBy, TokensUsed, TotalHundreds, Usage } from './fixtures';

type Message = { role: string; text: string };
type AppSession = ReturnType<typeof makeSession>;

describe('rxslice/react types', () => {
  it('carry the slice, computed and machine types', () => {
    expectTypeOf(useSlice(Messages)).toEqualTypeOf<readonly Message[]>();
    expectTypeOf(useLatest(Usage)).toEqualTypeOf<{ input: number; output: number } | undefined>();
    expectTypeOf(useComputed(TotalHundreds)).toEqualTypeOf<number>();
    expectTypeOf(useSelector(Messages, (m) => m.length)).toEqualTypeOf<number>();
    expectTypeOf(useSelector(TotalHundreds, (n) => n > 1)).toEqualTypeOf<boolean>();
    // @ts-expect-error the selector of a slice gets its items, not one item
    useSelector(Messages, (m: Message) => m.text);
    expectTypeOf(useMachine(Door).configuration).toEqualTypeOf<readonly ('closed' | 'open')[]>();
    // @ts-expect-error not a state of Door
    useMachine(Door).matches('ajar');
  });

  it('useSession and useDispatch take the session type; dispatch is TSession["dispatch"]', () => {
    expectTypeOf(useSession()).toEqualTypeOf<Session>();
    expectTypeOf(useSession<AppSession>()).toEqualTypeOf<AppSession>();
    expectTypeOf(useDispatch<AppSession>()).toEqualTypeOf<AppSession['dispatch']>();
  });
});

describe('typed by default: createSessionHooks and withTypes', () => {
  const session = makeSession();

  it('createSessionHooks(session): dispatch takes only the session\'s events; a misspelled type is a compile error', () => {
    const hooks = createSessionHooks(session);
    const dispatch = hooks.useDispatch();
    expectTypeOf(dispatch).toEqualTypeOf<AppSession['dispatch']>();
    expectTypeOf(hooks.useSession()).toEqualTypeOf<AppSession>();
    dispatch(MessageAdded({ role: 'user', text: 'hi' }));
    dispatch(TokensUsed({ input: 1, output: 2 }));
    dispatch(DoorOpened({}));
    dispatch({ type: 'chat/messageAdded', payload: { role: 'user', text: 'hi' } });
    // @ts-expect-error -- 'chat/mesageAdded' (typo) is not an event of the session
    dispatch({ type: 'chat/mesageAdded', payload: { role: 'user', text: 'hi' } });
    // @ts-expect-error -- the payload of chat/messageAdded has no 'txt'
    dispatch({ type: 'chat/messageAdded', payload: { role: 'user', txt: 'hi' } });
    expectTypeOf(hooks.useSlice(Messages)).toEqualTypeOf<readonly Message[]>();
    expectTypeOf(hooks.useLatest(Usage)).toEqualTypeOf<{ input: number; output: number } | undefined>();
    expectTypeOf(hooks.useComputed(TotalHundreds)).toEqualTypeOf<number>();
    expectTypeOf(hooks.useComputedFamily(MessagesBy, 'user')).toEqualTypeOf<number>();
    // @ts-expect-error -- the family's argument is a role (string)
    hooks.useComputedFamily(MessagesBy, 1);
    expectTypeOf(hooks.useSelector(Messages, (m) => m.length)).toEqualTypeOf<number>();
    expectTypeOf(hooks.useMachine(Door).configuration).toEqualTypeOf<readonly ('closed' | 'open')[]>();
  });

  it('useDispatch.withTypes<typeof session>() and useSession.withTypes: the same typing, declared once', () => {
    const useAppDispatch = useDispatch.withTypes<typeof session>();
    const dispatch = useAppDispatch();
    expectTypeOf(dispatch).toEqualTypeOf<AppSession['dispatch']>();
    dispatch(TokensUsed({ input: 1, output: 2 }));
    // @ts-expect-error -- 'chat/tokensUsd' (typo) is not an event of the session
    dispatch({ type: 'chat/tokensUsd', payload: { input: 1, output: 2 } });
    expectTypeOf(useSession.withTypes<typeof session>()()).toEqualTypeOf<AppSession>();
  });

  it('what they fix: the plain useDispatch() accepts any event type', () => {
    const dispatch = useDispatch();
    dispatch({ type: 'chat/mesageAdded', payload: {} }); // no error: untyped by default
  });

  it('useComputedFamily carries the family\'s argument and value types', () => {
    expectTypeOf(useComputedFamily(MessagesBy, 'assistant')).toEqualTypeOf<number>();
    // @ts-expect-error -- the family's argument is a role (string)
    useComputedFamily(MessagesBy, { role: 'user' });
  });
});

describe('rxslice/angular types', () => {
  it('return Signals of the slice, computed and machine types', () => {
    expectTypeOf(injectSlice(Messages)).toEqualTypeOf<Signal<readonly Message[]>>();
    expectTypeOf(injectLatest(Usage)).toEqualTypeOf<Signal<{ input: number; output: number } | undefined>>();
    expectTypeOf(injectComputed(TotalHundreds)).toEqualTypeOf<Signal<number>>();
    expectTypeOf(injectMachine(Door).configuration).toEqualTypeOf<Signal<readonly ('closed' | 'open')[]>>();
    expectTypeOf(injectSession<AppSession>()).toEqualTypeOf<AppSession>();
    expectTypeOf(injectDispatch<AppSession>()).toEqualTypeOf<AppSession['dispatch']>();
    expectTypeOf(injectComputedFamily(MessagesBy, 'user')).toEqualTypeOf<Signal<number>>();
  });

  it('injectDispatch.withTypes<typeof session>(): a misspelled event type is a compile error', () => {
    const injectAppDispatch = injectDispatch.withTypes<AppSession>();
    const dispatch = injectAppDispatch();
    expectTypeOf(dispatch).toEqualTypeOf<AppSession['dispatch']>();
    dispatch(MessageAdded({ role: 'user', text: 'hi' }));
    // @ts-expect-error -- 'door/opend' (typo) is not an event of the session
    dispatch({ type: 'door/opend', payload: {} });
    expectTypeOf(injectSession.withTypes<AppSession>()()).toEqualTypeOf<AppSession>();
  });
});
