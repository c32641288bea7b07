// @vitest-environment jsdom
/// <reference lib="dom" />
import { Component, computed, createEnvironmentInjector, EnvironmentInjector, Injector, provideZonelessChangeDetection } from '@angular/core';
import { toObservable, toSignal } from '@angular/core/rxjs-interop';
import { TestBed } from '@angular/core/testing';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { isRxSliceError, SliceNotRegisteredError } from '../../src/index';
import { MachineNotInstalledError } from '../../src/machines/errors';
import { defineMachine } from '../../src/index';
import {
  injectComputed,
  injectComputedFamily,
  injectDispatch,
  injectLatest,
  injectMachine,
  injectSession,
  injectSlice,
  provideSession,
  SessionNotProvidedError,
} from '../../src/angular/index';
import { countSubscriptions, Door, DoorOpened, makeSession, MessageAdded, Messages, MessagesBy, Stranger, TokensUsed, TotalHundreds, Usage } from '../react/fixtures';
import { initTestBed } from './setup';

beforeAll(initTestBed);
afterEach(() => TestBed.resetTestingModule());

function configure(session = makeSession()) {
  TestBed.configureTestingModule({ providers: [provideZonelessChangeDetection(), provideSession(session)] });
  return session;
}
const run = <T>(fn: () => T): T => TestBed.runInInjectionContext(fn);

describe('signals from a provided session', () => {
  it('injectSlice, injectLatest and injectComputed hold the handles\' own objects and change with them only', () => {
    const session = configure();
    const messages = run(() => injectSlice(Messages));
    const usage = run(() => injectLatest(Usage));
    const total = run(() => injectComputed(TotalHundreds));
    expect(messages()).toBe(session.slice(Messages).all());
    expect(usage()).toEqual({ input: 0, output: 0 });
    expect(total()).toBe(0);

    // Notifications per signal, through Angular's own reactive graph.
    let messageReads = 0;
    let usageReads = 0;
    const messageCount = computed(() => (messageReads++, messages().length));
    const output = computed(() => (usageReads++, usage()?.output));
    expect([messageCount(), output()]).toEqual([0, 0]);
    session.dispatch(TokensUsed({ input: 12, output: 30 }));
    expect([messageCount(), output(), total()]).toEqual([0, 30, 0]);
    expect([messageReads, usageReads]).toEqual([1, 2]); // Messages did not change: its computed did not rerun
    session.dispatch(MessageAdded({ role: 'user', text: 'hi' }));
    expect([messageCount(), output()]).toEqual([1, 30]);
    expect([messageReads, usageReads]).toEqual([2, 2]);
    expect(messages()).toBe(session.slice(Messages).all());
    session.dispatch(TokensUsed({ input: 100, output: 100 }));
    expect(total()).toBe(2);
  });

  it('injectDispatch and injectSession give the session\'s own dispatch and session', () => {
    const session = configure();
    const dispatch = run(() => injectDispatch<typeof session>());
    expect(dispatch).toBe(session.dispatch);
    expect(run(() => injectSession<typeof session>())).toBe(session);
    dispatch(MessageAdded({ role: 'user', text: 'x' }));
    expect(session.slice(Messages).size).toBe(1);
  });

  it('injectComputedFamily: the member\'s value, notified only when that member changed; one subscription per signal, ended with the injector', () => {
    const session = configure();
    const member = countSubscriptions(session.computed(MessagesBy)('user').value$);
    const child = createEnvironmentInjector([], TestBed.inject(EnvironmentInjector));
    const users = injectComputedFamily(MessagesBy, 'user', { injector: child });
    const assistants = run(() => injectComputedFamily(MessagesBy, 'assistant'));
    expect([users(), assistants(), member.live]).toEqual([0, 0, 1]);
    let reads = 0;
    const shown = computed(() => (reads++, users()));
    expect(shown()).toBe(0);
    session.dispatch(MessageAdded({ role: 'assistant', text: 'a' })); // another member moved
    expect([shown(), assistants(), reads]).toEqual([0, 1, 1]);
    session.dispatch(MessageAdded({ role: 'user', text: 'u' }));
    expect([shown(), reads]).toEqual([1, 2]);
    expect(users()).toBe(session.computed(MessagesBy)('user').latest());
    child.destroy();
    expect(member.live).toBe(0);
  });

  it('withTypes returns the injector function itself (the typing is all it adds)', () => {
    expect(injectDispatch.withTypes<ReturnType<typeof makeSession>>()).toBe(injectDispatch);
    expect(injectSession.withTypes<ReturnType<typeof makeSession>>()).toBe(injectSession);
  });

  it('injectMachine: configuration, matches, can and availableTransitions follow the snapshot', () => {
    const session = configure();
    const door = run(() => injectMachine(Door));
    const open = computed(() => door.matches('open'));
    expect(door.configuration()).toEqual(['closed']);
    expect(open()).toBe(false);
    expect(door.can('door/closed')).toBe(false);
    expect(door.availableTransitions().map((t) => t.event)).toEqual(['door/opened']);
    const before = door.snapshot();
    session.dispatch(TokensUsed({ input: 1, output: 1 }));
    expect(door.snapshot()).toBe(before); // not the machine's business
    session.dispatch(DoorOpened({}));
    expect(door.configuration()).toEqual(['open']);
    expect(open()).toBe(true);
    expect(door.availableTransitions().map((t) => t.event)).toEqual(['door/closed']);
  });

  it('an explicit { injector } works outside an injection context', () => {
    const session = configure();
    const injector = TestBed.inject(Injector);
    const usage = injectLatest(Usage, { injector });
    session.dispatch(TokensUsed({ input: 1, output: 2 }));
    expect(usage()).toEqual({ input: 1, output: 2 });
  });
});

describe('lifetime (DestroyRef)', () => {
  it('subscriptions end with their injector; a factory-provided session is disposed with it', () => {
    const session = makeSession();
    const all = countSubscriptions(session.slice(Messages).all$);
    const door = countSubscriptions(session.machine(Door).current$);
    const parent = TestBed.inject(EnvironmentInjector);
    const child = createEnvironmentInjector([provideSession(session)], parent);
    const messages = injectSlice(Messages, { injector: child });
    injectMachine(Door, { injector: child });
    expect([all.live, door.live]).toEqual([1, 1]);
    child.destroy();
    expect([all.live, door.live]).toEqual([0, 0]);
    session.dispatch(MessageAdded({ role: 'user', text: 'after' }));
    expect(messages()).toEqual([]); // no longer updated
    expect(() => session.slice(Messages)).not.toThrow(); // a session passed by value is the caller's

    let created: ReturnType<typeof makeSession> | undefined;
    const owner = createEnvironmentInjector([provideSession(() => (created = makeSession()))], parent);
    injectLatest(Usage, { injector: owner });
    owner.destroy();
    expect(created).toBeDefined();
    expect(() => created?.dispatch(TokensUsed({ input: 1, output: 1 }))).toThrow(/disposed/);
  });

  it('a component\'s signals update its template without zone.js and unsubscribe when it is destroyed', async () => {
    const session = configure();
    const live = countSubscriptions(session.slice(Usage).latest$);
    class Tokens {
      readonly usage = injectLatest(Usage);
      readonly dispatch = injectDispatch();
      readonly door = injectMachine(Door);
    }
    Component({ selector: 'rx-tokens', template: '<b>{{ usage()?.output }}</b>|<i>{{ door.configuration().join() }}</i>' })(Tokens);
    const fixture = TestBed.createComponent(Tokens);
    await fixture.whenStable();
    const text = () => (fixture.nativeElement as HTMLElement).textContent;
    expect(text()).toBe('0|closed');
    expect(live.live).toBe(1);
    fixture.componentInstance.dispatch(TokensUsed({ input: 5, output: 7 }));
    fixture.componentInstance.dispatch(DoorOpened({}));
    await fixture.whenStable(); // zoneless: the signal change scheduled change detection by itself
    expect(text()).toBe('7|open');
    fixture.destroy();
    expect(live.live).toBe(0);
  });
});

describe('interop with toObservable and toSignal', () => {
  it('toObservable(injectSlice(...)) emits on change; toSignal over all$ agrees with injectSlice', () => {
    const session = configure();
    const seen: number[] = [];
    const [messages, fromRx] = run(() => {
      const m = injectSlice(Messages);
      toObservable(m).subscribe((items) => seen.push(items.length));
      return [m, toSignal(session.slice(Messages).all$, { requireSync: true })] as const;
    });
    TestBed.tick();
    session.dispatch(MessageAdded({ role: 'user', text: 'a' }));
    TestBed.tick();
    session.dispatch(MessageAdded({ role: 'user', text: 'b' }));
    TestBed.tick();
    expect(seen).toEqual([0, 1, 2]);
    expect(fromRx()).toBe(messages());
  });
});

describe('errors', () => {
  it.each([
    ['injectSession()', () => injectSession()],
    ['injectSlice()', () => injectSlice(Messages)],
    ['injectLatest()', () => injectLatest(Usage)],
    ['injectComputed()', () => injectComputed(TotalHundreds)],
    ['injectComputedFamily()', () => injectComputedFamily(MessagesBy, 'user')],
    ['injectDispatch()', () => injectDispatch()],
    ['injectMachine()', () => injectMachine(Door)],
  ] as [string, () => unknown][])('%s without provideSession throws SessionNotProvidedError', (name, inject) => {
    let caught: unknown;
    try {
      run(inject);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(SessionNotProvidedError);
    expect(isRxSliceError(caught) && caught.code).toBe('SESSION_NOT_PROVIDED');
    expect((caught as Error).message).toMatch(new RegExp(`^${name.replace(/[()]/g, '\\$&')} needs a session, .* Add provideSession\\(session\\) to the providers`));
  });

  it('outside an injection context: Angular\'s NG0203 naming the function', () => {
    expect(() => injectSlice(Messages)).toThrow(/NG0203.*injectSlice/);
  });

  it('a slice or machine the session does not hold', () => {
    configure();
    expect(() => run(() => injectSlice(Stranger))).toThrow(SliceNotRegisteredError);
    const Other = defineMachine('other', { initial: 'a', states: { a: {} } });
    expect(() => run(() => injectMachine(Other))).toThrow(MachineNotInstalledError);
  });
});
