// @vitest-environment jsdom
/// <reference lib="dom" />
import { mount } from '@vue/test-utils';
import { createApp, createSSRApp, defineComponent, effectScope, h, nextTick, watch, type Component } from 'vue';
import { renderToString } from 'vue/server-renderer';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { defineMachine, isRxSliceError, MachineNotInstalledError, SessionDisposedError, SliceNotRegisteredError } from '../../src/index';
import {
  createSessionComposables,
  EffectScopeRequiredError,
  provideSession,
  SessionKey,
  SessionNotProvidedError,
  useComputed,
  useDispatch,
  useLatest,
  useMachine,
  useSelector,
  useSession,
  useSlice,
} from '../../src/vue/index';
import { countSubscriptions, Door, DoorClosed, DoorOpened, makeSession, MessageAdded, Messages, Stranger, TokensUsed, TotalHundreds, Usage } from '../react/fixtures';

type AppSession = ReturnType<typeof makeSession>;
const mounted: { unmount(): void }[] = [];
afterEach(() => mounted.splice(0).forEach((w) => w.unmount()));

/** Mounts `component` with `session` provided app-wide (Vue Test Utils' global.provide). */
function mountWith(session: AppSession, component: Component) {
  const wrapper = mount(component, { global: { provide: { [SessionKey as symbol]: session } } });
  mounted.push(wrapper);
  return wrapper;
}

describe('useSlice and useLatest', () => {
  it('render the items, update on dispatch, and re-render only when their slice changed', async () => {
    const session = makeSession();
    const renders = { messages: 0, usage: 0 };
    const MessageCount = defineComponent(() => {
      const messages = useSlice(Messages);
      return () => (renders.messages++, h('span', { id: 'messages' }, String(messages.value.length)));
    });
    const Output = defineComponent(() => {
      const usage = useLatest(Usage);
      return () => (renders.usage++, h('span', { id: 'usage' }, String(usage.value?.output)));
    });
    const view = mountWith(session, () => h('div', [h(MessageCount), h(Output)]));
    expect(view.get('#messages').text()).toBe('0');
    expect(view.get('#usage').text()).toBe('0');
    expect(renders).toEqual({ messages: 1, usage: 1 });

    session.dispatch(TokensUsed({ input: 12, output: 30 }));
    await nextTick();
    expect(view.get('#usage').text()).toBe('30');
    expect(renders).toEqual({ messages: 1, usage: 2 }); // Messages did not change: its reader did not render

    session.dispatch(MessageAdded({ role: 'user', text: 'hi' }));
    session.dispatch(MessageAdded({ role: 'assistant', text: 'a' }));
    await nextTick();
    expect(view.get('#messages').text()).toBe('2');
    expect(renders).toEqual({ messages: 2, usage: 2 }); // two events before the tick: one render
  });

  it("hold the handle's own objects, set synchronously by dispatch", () => {
    const session = makeSession();
    let refs: { messages: { value: unknown }; usage: { value: unknown } } | undefined;
    mountWith(session, defineComponent(() => ((refs = { messages: useSlice(Messages), usage: useLatest(Usage) }), () => null)));
    expect(refs?.messages.value).toBe(session.slice(Messages).all());
    session.dispatch(MessageAdded({ role: 'user', text: 'x' }));
    expect(refs?.messages.value).toBe(session.slice(Messages).all()); // before any tick
    expect(refs?.usage.value).toBe(session.slice(Usage).latest());
  });
});

describe('useComputed and useSelector', () => {
  it('useComputed triggers only when the computed value changed, not on every change of its source', async () => {
    const session = makeSession();
    let renders = 0;
    const view = mountWith(session, defineComponent(() => {
      const hundreds = useComputed(TotalHundreds);
      return () => (renders++, h('b', String(hundreds.value)));
    }));
    session.dispatch(TokensUsed({ input: 10, output: 10 })); // 20: still 0 hundreds
    await nextTick();
    expect([view.text(), renders]).toEqual(['0', 1]);
    session.dispatch(TokensUsed({ input: 100, output: 100 })); // 220
    await nextTick();
    expect([view.text(), renders]).toEqual(['2', 2]);
  });

  it('useSelector runs the selector only when its source changed; isEqual keeps an equal selection', async () => {
    const session = makeSession();
    const selector = vi.fn((m: readonly { role: string }[]) => m.filter((x) => x.role === 'user').map((x) => x.role));
    const sameLength = (a: readonly string[], b: readonly string[]) => a.length === b.length;
    const seen: unknown[] = [];
    mountWith(session, defineComponent(() => {
      const users = useSelector(Messages, selector, sameLength);
      watch(users, (value) => seen.push(value));
      return () => h('i', users.value.join());
    }));
    expect(selector).toHaveBeenCalledTimes(1);
    session.dispatch(TokensUsed({ input: 1, output: 1 })); // another slice: the selector does not run
    expect(selector).toHaveBeenCalledTimes(1);
    session.dispatch(MessageAdded({ role: 'assistant', text: 'a' })); // runs, equal selection ([] and [])
    await nextTick();
    expect([selector.mock.calls.length, seen.length]).toEqual([2, 0]);
    session.dispatch(MessageAdded({ role: 'user', text: 'b' }));
    await nextTick();
    expect(seen).toEqual([['user']]);
  });
  it('a selector that throws on a later change is reported on session.errors$; the dispatch commits and the ref keeps its value', () => {
    const session = makeSession();
    const reported: unknown[] = [];
    session.errors$.subscribe((e) => reported.push(e));
    let users: { value: number } | undefined;
    mountWith(session, defineComponent(() => {
      users = useSelector(Messages, (m) => {
        if (m.length > 1) throw new Error('selector failed');
        return m.length;
      });
      return () => null;
    }));
    session.dispatch(MessageAdded({ role: 'user', text: 'a' }));
    expect(users?.value).toBe(1);
    session.dispatch(MessageAdded({ role: 'user', text: 'b' }));
    expect(session.slice(Messages).all()).toHaveLength(2);
    expect(users?.value).toBe(1);
    expect(reported).toHaveLength(1);
    expect(isRxSliceError(reported[0]) && reported[0].code).toBe('SUBSCRIBER_FAILED');
  });
});

describe('useMachine and useDispatch', () => {
  it('a click dispatches; the state shows the new configuration and transitions', async () => {
    const session = makeSession();
    let renders = 0;
    const view = mountWith(session, defineComponent(() => {
      const door = useMachine(Door);
      const dispatch = useDispatch<AppSession>();
      const toggle = () => dispatch(door.value.matches('open') ? DoorClosed({}) : DoorOpened({}));
      return () => (renders++, h('button', { onClick: toggle }, `${door.value.configuration.join()} ${door.value.availableTransitions().map((t) => t.event).join()} ${String(door.value.can('door/opened'))}`));
    }));
    expect(view.text()).toBe('closed door/opened true');
    await view.get('button').trigger('click');
    expect(view.text()).toBe('open door/closed false');
    session.dispatch(MessageAdded({ role: 'user', text: 'x' })); // not the machine's: no new state
    await nextTick();
    expect(renders).toBe(2);
    await view.get('button').trigger('click');
    expect(view.text()).toBe('closed door/opened true');
  });
});

describe('effect scopes', () => {
  it('unmounting unsubscribes every composable; stopping an effect scope does too', () => {
    const session = makeSession();
    const counters = [
      countSubscriptions(session.slice(Messages).all$),
      countSubscriptions(session.slice(Usage).latest$),
      countSubscriptions(session.computed(TotalHundreds).value$),
      countSubscriptions(session.machine(Door).current$),
    ];
    const read = () => [useSlice(Messages), useLatest(Usage), useComputed(TotalHundreds), useMachine(Door)];
    const view = mountWith(session, defineComponent(() => (read(), () => null)));
    expect(counters.map((c) => c.live)).toEqual([1, 1, 1, 1]);
    view.unmount();
    mounted.pop();
    expect(counters.map((c) => c.live)).toEqual([0, 0, 0, 0]);

    const { useSlice: useAppSlice } = createSessionComposables(session);
    const scope = effectScope();
    const messages = scope.run(() => useAppSlice(Messages));
    expect(counters[0]?.live).toBe(1);
    session.dispatch(MessageAdded({ role: 'user', text: 'in a store module' }));
    expect(messages?.value).toHaveLength(1);
    scope.stop();
    expect(counters[0]?.live).toBe(0);
    expect(counters.map((c) => c.total)).toEqual([2, 1, 1, 1]);
  });

  it('server rendering reads the current state and leaves no subscription', async () => {
    const session = makeSession();
    session.dispatch(TokensUsed({ input: 2, output: 3 }));
    const latest = countSubscriptions(session.slice(Usage).latest$);
    const app = createSSRApp(defineComponent(() => {
      const usage = useLatest(Usage);
      return () => h('b', String(usage.value?.output));
    }));
    provideSession(session, app);
    expect(await renderToString(app)).toBe('<b>3</b>');
    expect(latest.total).toBe(0);
  });
});

describe('provideSession and createSessionComposables', () => {
  it('a parent provides to its subtree; a factory session is disposed when the provider unmounts', async () => {
    let owned: AppSession | undefined;
    const Child = defineComponent(() => {
      const usage = useLatest(Usage);
      expect(useSession()).toBe(owned);
      return () => h('b', String(usage.value?.input));
    });
    const Parent = defineComponent(() => {
      owned = provideSession(makeSession);
      return () => h(Child);
    });
    const view = mount(Parent);
    owned?.dispatch(TokensUsed({ input: 7, output: 0 }));
    await nextTick();
    expect(view.text()).toBe('7');
    view.unmount();
    expect(() => owned?.dispatch(TokensUsed({ input: 1, output: 0 }))).toThrow(SessionDisposedError);
  });

  it('provideSession(session, app) provides to a whole app', () => {
    const session = makeSession();
    const el = document.createElement('div');
    const app = createApp(defineComponent(() => {
      const messages = useSlice(Messages);
      return () => h('b', String(messages.value.length));
    }));
    provideSession(session, app);
    app.mount(el);
    expect(el.textContent).toBe('0');
    app.unmount();
  });

  it('createSessionComposables reads the provided session, else its own', () => {
    const own = makeSession();
    const provided = makeSession();
    provided.dispatch(TokensUsed({ input: 5, output: 0 }));
    const app = createSessionComposables(own);
    const seen: unknown[] = [];
    const View = defineComponent(() => {
      seen.push(app.useSession(), app.useLatest(Usage).value?.input);
      return () => null;
    });
    mounted.push(mount(View));
    mountWith(provided, View);
    expect(seen).toEqual([own, 0, provided, 5]);
    expect(app.useDispatch()).toBe(own.dispatch); // outside setup: its own session
  });
});

describe('errors', () => {
  /** What mounting `component` throws (an error thrown in setup() leaves mount). */
  const thrownBy = (component: Component, session?: AppSession): unknown => {
    try {
      mounted.push(mount(component, { global: { provide: session ? { [SessionKey as symbol]: session } : {}, config: { warnHandler: () => {} } } }));
    } catch (e) {
      return e;
    }
    return undefined;
  };

  it('a composable with no provided session throws SessionNotProvidedError naming it and provideSession', () => {
    for (const [name, use] of [['useSlice()', () => useSlice(Messages)], ['useDispatch()', () => useDispatch()], ['useMachine()', () => useMachine(Door)]] as const) {
      const error = thrownBy(defineComponent(() => (use(), () => null)));
      expect(error).toBeInstanceOf(SessionNotProvidedError);
      expect(isRxSliceError(error) && error.code).toBe('SESSION_NOT_PROVIDED');
      expect((error as Error).message).toContain(`${name} needs a session, but no provideSession(session) is above this component`);
    }
  });

  it('outside setup: SessionNotProvidedError says so; a bound composable without a scope throws EffectScopeRequiredError', () => {
    expect(() => useLatest(Usage)).toThrow(/useLatest\(\) needs a session but was called outside setup\(\)/);
    expect(() => createSessionComposables(makeSession()).useSlice(Messages)).toThrow(EffectScopeRequiredError);
    expect(() => createSessionComposables(makeSession()).useSlice(Messages)).toThrow(/effectScope\(\)\.run/);
    expect(() => provideSession(makeSession())).toThrow(/outside a component's setup\(\).*provideSession\(session, app\)/);
  });

  it('a slice or machine the session does not hold fails in setup with its own error', () => {
    const session = makeSession();
    const Gate = defineMachine('gate', { initial: 'shut', states: { shut: {} } });
    expect(thrownBy(defineComponent(() => (useSlice(Stranger), () => null)), session)).toBeInstanceOf(SliceNotRegisteredError);
    expect(thrownBy(defineComponent(() => (useMachine(Gate), () => null)), session)).toBeInstanceOf(MachineNotInstalledError);
  });
});
