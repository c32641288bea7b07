// @vitest-environment jsdom
/// <reference lib="dom" />
import { act, cleanup, fireEvent, render } from '@testing-library/react';
import { createRoot } from 'react-dom/client';
import { createElement as h, startTransition, Profiler, StrictMode, useState } from 'react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { SessionProvider, useComputed, useDispatch, useLatest, useMachine, useSelector, useSession, useSlice } from '../../src/react/index';
import { DoorClosed, DoorOpened, Door, makeSession, MessageAdded, Messages, TokensUsed, TotalHundreds, Usage, countSubscriptions } from './fixtures';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;
afterEach(cleanup);

/** Renders `node` under a provider of `session`, counting each component's renders in `renders`. */
function mount(session: ReturnType<typeof makeSession>, node: Parameters<typeof h>[0], strict = false) {
  const tree = h(SessionProvider, { session }, h(node as never));
  return render(strict ? h(StrictMode, null, tree) : tree);
}

describe('useSlice and useLatest', () => {
  it('render the items and re-render only when their slice changed (reading A ignores B)', () => {
    const session = makeSession();
    const renders = { messages: 0, usage: 0 };
    const MessageCount = () => {
      renders.messages++;
      return h('span', { 'data-testid': 'messages' }, String(useSlice(Messages).length));
    };
    const Output = () => {
      renders.usage++;
      return h('span', { 'data-testid': 'usage' }, String(useLatest(Usage)?.output));
    };
    const view = mount(session, () => h('div', null, h(MessageCount), h(Output)));
    expect(view.getByTestId('messages').textContent).toBe('0');
    expect(view.getByTestId('usage').textContent).toBe('0');
    expect(renders).toEqual({ messages: 1, usage: 1 });

    act(() => void session.dispatch(TokensUsed({ input: 12, output: 30 })));
    expect(view.getByTestId('usage').textContent).toBe('30');
    expect(renders).toEqual({ messages: 1, usage: 2 }); // Messages did not change: its reader did not render

    act(() => void session.dispatch(MessageAdded({ role: 'user', text: 'hi' })));
    expect(view.getByTestId('messages').textContent).toBe('1');
    expect(renders).toEqual({ messages: 2, usage: 2 });

    act(() => {
      session.dispatch(MessageAdded({ role: 'assistant', text: 'a' }));
      session.dispatch(MessageAdded({ role: 'assistant', text: 'b' }));
    });
    expect(view.getByTestId('messages').textContent).toBe('3');
    expect(renders).toEqual({ messages: 3, usage: 2 }); // two events in one act: one render
  });

  it('hand out the handle\'s own objects: the rendered array is session.slice(def).all()', () => {
    const session = makeSession();
    session.dispatch(MessageAdded({ role: 'user', text: 'x' }));
    const seen: unknown[] = [];
    const Reader = () => {
      seen.push(useSlice(Messages), useLatest(Usage));
      return null;
    };
    mount(session, Reader);
    expect(seen[0]).toBe(session.slice(Messages).all());
    expect(seen[1]).toBe(session.slice(Usage).latest());
  });
});

describe('StrictMode and subscriptions', () => {
  it('one live subscription per hook after StrictMode\'s double mount, none after unmount', () => {
    const session = makeSession();
    const all = countSubscriptions(session.slice(Messages).all$);
    const latest = countSubscriptions(session.slice(Usage).latest$);
    const value = countSubscriptions(session.computed(TotalHundreds).value$);
    const door = countSubscriptions(session.machine(Door).current$);
    const Reader = () => {
      useSlice(Messages);
      useLatest(Usage);
      useComputed(TotalHundreds);
      useMachine(Door);
      return null;
    };
    const view = mount(session, Reader, true);
    expect([all.live, latest.live, value.live, door.live]).toEqual([1, 1, 1, 1]);
    act(() => void session.dispatch(MessageAdded({ role: 'user', text: 'hi' }))); // re-renders do not resubscribe
    act(() => void session.dispatch(TokensUsed({ input: 100, output: 100 })));
    act(() => void session.dispatch(DoorOpened({})));
    expect([all.live, latest.live, value.live, door.live]).toEqual([1, 1, 1, 1]);
    expect(all.total).toBeLessThanOrEqual(2); // StrictMode's mount, unmount, mount: at most one extra, torn down
    view.unmount();
    expect([all.live, latest.live, value.live, door.live]).toEqual([0, 0, 0, 0]);
  });
});

describe('useComputed', () => {
  it('re-renders only when the computed value changed, not on every change of its source', () => {
    const session = makeSession();
    let renders = 0;
    const Total = () => {
      renders++;
      return h('b', { 'data-testid': 'total' }, String(useComputed(TotalHundreds)));
    };
    const view = mount(session, Total);
    expect(view.getByTestId('total').textContent).toBe('0');
    act(() => void session.dispatch(TokensUsed({ input: 10, output: 10 }))); // 20: still 0 hundreds
    act(() => void session.dispatch(MessageAdded({ role: 'user', text: 'unrelated' })));
    expect(renders).toBe(1);
    act(() => void session.dispatch(TokensUsed({ input: 100, output: 90 }))); // 210
    expect(view.getByTestId('total').textContent).toBe('2');
    expect(renders).toBe(2);
  });
});

describe('useSelector', () => {
  it('re-renders when the selected part changed; isEqual keeps an equal selection', () => {
    const session = makeSession();
    const renders = { users: 0, roles: 0 };
    const Users = () => {
      renders.users++;
      return h('i', { 'data-testid': 'users' }, String(useSelector(Messages, (m) => m.filter((x) => x.role === 'user').length)));
    };
    const sameList = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((x, i) => x === b[i]);
    const Roles = () => {
      renders.roles++;
      const roles = useSelector(Messages, (m) => [...new Set(m.map((x) => x.role))], sameList);
      return h('i', { 'data-testid': 'roles' }, roles.join(','));
    };
    const view = mount(session, () => h('div', null, h(Users), h(Roles)));
    act(() => void session.dispatch(MessageAdded({ role: 'user', text: 'a' })));
    expect(view.getByTestId('users').textContent).toBe('1');
    expect(view.getByTestId('roles').textContent).toBe('user');
    expect(renders).toEqual({ users: 2, roles: 2 });
    act(() => void session.dispatch(MessageAdded({ role: 'assistant', text: 'b' }))); // users unchanged
    expect(renders).toEqual({ users: 2, roles: 3 });
    act(() => void session.dispatch(MessageAdded({ role: 'assistant', text: 'c' }))); // roles equal by sameList
    act(() => void session.dispatch(TokensUsed({ input: 1, output: 1 }))); // another slice
    expect(renders).toEqual({ users: 2, roles: 3 });
    expect(view.getByTestId('roles').textContent).toBe('user,assistant');
  });

  it('reads a computed slice too', () => {
    const session = makeSession();
    const Big = () => h('i', { 'data-testid': 'big' }, String(useSelector(TotalHundreds, (n) => n >= 1)));
    const view = mount(session, Big);
    expect(view.getByTestId('big').textContent).toBe('false');
    act(() => void session.dispatch(TokensUsed({ input: 60, output: 60 })));
    expect(view.getByTestId('big').textContent).toBe('true');
  });
});

describe('useDispatch, useSession and useMachine', () => {
  it('a click dispatches; the machine re-renders with the new configuration and transitions', () => {
    const session = makeSession();
    const dispatches: unknown[] = [];
    let renders = 0;
    const DoorView = () => {
      renders++;
      const dispatch = useDispatch<typeof session>();
      dispatches.push(dispatch);
      expect(useSession<typeof session>()).toBe(session);
      const door = useMachine(Door);
      const next = door.availableTransitions().map((t) => t.event);
      return h(
        'div',
        null,
        h('p', { 'data-testid': 'state' }, door.configuration.join(' ')),
        ...next.map((type) => h('button', { key: type, onClick: () => dispatch(type === 'door/opened' ? DoorOpened({}) : DoorClosed({})) }, type)),
        h('i', { 'data-testid': 'can-close' }, String(door.can('door/closed'))),
      );
    };
    const view = mount(session, DoorView);
    expect(view.getByTestId('state').textContent).toBe('closed');
    expect(view.getByTestId('can-close').textContent).toBe('false');
    fireEvent.click(view.getByText('door/opened'));
    expect(view.getByTestId('state').textContent).toBe('open');
    expect(view.getByTestId('can-close').textContent).toBe('true');
    expect(view.queryByText('door/opened')).toBeNull();
    expect(session.machine(Door).matches('open')).toBe(true);
    act(() => void session.dispatch(TokensUsed({ input: 1, output: 1 }))); // not the machine's business
    expect(renders).toBe(2);
    expect(dispatches[0]).toBe(dispatches[1]); // the same function on every render
    expect(dispatches[0]).toBe(session.dispatch);
  });

  it('the returned state is memoized on the snapshot', () => {
    const session = makeSession();
    const states: unknown[] = [];
    const Reader = () => {
      states.push(useMachine(Door));
      return null;
    };
    const view = mount(session, Reader);
    view.rerender(h(SessionProvider, { session }, h(Reader)));
    expect(states).toHaveLength(2);
    expect(states[0]).toBe(states[1]);
  });
});

describe('no tearing', () => {
  it('a change while a concurrent render has yielded: every commit shows one value', async () => {
    const acting = globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean };
    acting.IS_REACT_ACT_ENVIRONMENT = false; // a real concurrent render that yields to timers, not act()'s synchronous flush
    const session = makeSession();
    const screens: string[] = [];
    let setTick: (n: number) => void = () => {};
    const Reader = ({ i }: { i: number }) => {
      const output = useLatest(Usage)?.output;
      const until = performance.now() + 3; // a slow component: the transition yields between readers (every ~5 ms)
      while (performance.now() < until);
      return h('span', { 'data-i': i }, String(output));
    };
    const Parent = () => {
      const [tick, set] = useState(0);
      setTick = set;
      return h('div', { 'data-tick': tick }, ...[0, 1, 2, 3, 4, 5, 6, 7].map((i) => h(Reader, { key: `${i}-${tick}`, i })));
    };
    // What each commit put on screen (Profiler's onRender runs in the commit, after the DOM changed):
    // a torn commit shows two values side by side.
    const onRender = () => void screens.push(Array.from(container.querySelectorAll('span')).map((c) => c.textContent ?? '').join(','));
    const container = document.createElement('div');
    const root = createRoot(container);
    try {
      root.render(h(SessionProvider, { session }, h(Profiler, { id: 'readers', onRender }, h(Parent))));
      await vi.waitFor(() => expect(screens).toEqual(['0,0,0,0,0,0,0,0']));
      startTransition(() => setTick(1)); // remounts every reader in a yielding render
      setTimeout(() => session.dispatch(TokensUsed({ input: 0, output: 7 })), 0); // runs at the first yield
      await vi.waitFor(() => expect(container.textContent).toBe('77777777'));
      expect(screens.every((s) => new Set(s.split(',')).size === 1)).toBe(true);
      expect(screens.at(-1)).toBe('7,7,7,7,7,7,7,7');
    } finally {
      root.unmount();
      acting.IS_REACT_ACT_ENVIRONMENT = true;
    }
  });
});
