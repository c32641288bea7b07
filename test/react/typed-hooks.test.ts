// @vitest-environment jsdom
/// <reference lib="dom" />
import { act, cleanup, render } from '@testing-library/react';
import { createElement as h, StrictMode, useState } from 'react';
import { renderToString } from 'react-dom/server';
import { afterEach, describe, expect, it } from 'vitest';
import { computedFamily } from '../../src/index';
import { createSessionHooks, SessionProvider, useComputedFamily, useDispatch, useSession } from '../../src/react/index';
import { countSubscriptions, Door, DoorOpened, makeSession, MessageAdded, Messages, MessagesBy, TokensUsed, TotalHundreds, Usage } from './fixtures';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;
afterEach(cleanup);

describe('createSessionHooks(session)', () => {
  it('hooks bound to the session: they render and dispatch without a provider', () => {
    const session = makeSession();
    const hooks = createSessionHooks(session);
    const seen: unknown[] = [];
    let send: (() => void) | undefined;
    const View = () => {
      const dispatch = hooks.useDispatch();
      send = () => void dispatch(MessageAdded({ role: 'user', text: 'hi' }));
      seen.push(hooks.useSession());
      const text = [
        hooks.useSlice(Messages).length,
        hooks.useLatest(Usage)?.output,
        hooks.useComputed(TotalHundreds),
        hooks.useComputedFamily(MessagesBy, 'user'),
        hooks.useSelector(Messages, (m) => m.at(-1)?.text ?? '-'),
        hooks.useMachine(Door).configuration.join(),
      ].join(' ');
      return h('p', { 'data-testid': 'p' }, text);
    };
    const view = render(h(View));
    expect(view.getByTestId('p').textContent).toBe('0 0 0 0 - closed');
    act(() => send?.());
    act(() => void session.dispatch(TokensUsed({ input: 150, output: 60 })));
    act(() => void session.dispatch(DoorOpened({})));
    expect(view.getByTestId('p').textContent).toBe('1 60 2 1 hi open');
    expect(seen.every((s) => s === session)).toBe(true);
    expect(session.slice(Messages).all()).toEqual([{ role: 'user', text: 'hi' }]);
  });

  it('under a SessionProvider, the provided session wins (a test or a server render hands in its own)', () => {
    const bound = makeSession();
    const provided = makeSession();
    provided.dispatch(MessageAdded({ role: 'user', text: 'provided' }));
    const hooks = createSessionHooks(bound);
    const View = () => {
      const dispatch = hooks.useDispatch();
      return h('p', null, `${hooks.useSelector(Messages, (m) => m.map((x) => x.text).join())} ${hooks.useSession() === provided} ${dispatch === provided.dispatch}`);
    };
    expect(renderToString(h(SessionProvider, { session: provided }, h(View)))).toBe('<p>provided true true</p>');
    expect(renderToString(h(View))).toBe('<p> false false</p>');
  });

  it('the hooks object is frozen; withTypes returns the hook itself', () => {
    expect(Object.isFrozen(createSessionHooks(makeSession()))).toBe(true);
    expect(useDispatch.withTypes<ReturnType<typeof makeSession>>()).toBe(useDispatch);
    expect(useSession.withTypes<ReturnType<typeof makeSession>>()).toBe(useSession);
  });
});

describe('useComputedFamily', () => {
  it('renders one member and re-renders only when that member changed', () => {
    const session = makeSession();
    let renders = 0;
    const UserCount = () => {
      renders++;
      return h('b', { 'data-testid': 'n' }, String(useComputedFamily(MessagesBy, 'user')));
    };
    const view = render(h(SessionProvider, { session }, h(UserCount)));
    expect([view.getByTestId('n').textContent, renders]).toEqual(['0', 1]);
    act(() => void session.dispatch(MessageAdded({ role: 'assistant', text: 'a' }))); // another member moved
    act(() => void session.dispatch(TokensUsed({ input: 1, output: 1 }))); // another slice
    expect([view.getByTestId('n').textContent, renders]).toEqual(['0', 1]);
    act(() => void session.dispatch(MessageAdded({ role: 'user', text: 'u' })));
    expect([view.getByTestId('n').textContent, renders]).toEqual(['1', 2]);
  });

  it('a new argument switches member in the same render; the value is the family accessor\'s', () => {
    const session = makeSession();
    session.dispatch(MessageAdded({ role: 'assistant', text: 'a' }));
    session.dispatch(MessageAdded({ role: 'assistant', text: 'b' }));
    let pick: ((role: string) => void) | undefined;
    const Picker = () => {
      const [role, setRole] = useState('user');
      pick = setRole;
      return h('b', { 'data-testid': 'n' }, `${role}:${useComputedFamily(MessagesBy, role)}`);
    };
    const view = render(h(SessionProvider, { session }, h(Picker)));
    expect(view.getByTestId('n').textContent).toBe('user:0');
    act(() => pick?.('assistant'));
    expect(view.getByTestId('n').textContent).toBe('assistant:2');
    expect(computedFamily(session, MessagesBy)('assistant').latest()).toBe(2);
    act(() => void session.dispatch(MessageAdded({ role: 'assistant', text: 'c' })));
    expect(view.getByTestId('n').textContent).toBe('assistant:3');
  });

  it('one live subscription to the member under StrictMode, none after unmount', () => {
    const session = makeSession();
    const member = countSubscriptions(computedFamily(session, MessagesBy)('user').value$);
    const Reader = () => (useComputedFamily(MessagesBy, 'user'), null);
    const view = render(h(StrictMode, null, h(SessionProvider, { session }, h(Reader))));
    expect(member.live).toBe(1);
    view.unmount();
    expect(member.live).toBe(0);
  });

  it('renders the current value on the server', () => {
    const session = makeSession();
    session.dispatch(MessageAdded({ role: 'user', text: 'x' }));
    const Count = () => h('i', null, useComputedFamily(MessagesBy, 'user'));
    expect(renderToString(h(SessionProvider, { session }, h(Count)))).toBe('<i>1</i>');
  });
});
