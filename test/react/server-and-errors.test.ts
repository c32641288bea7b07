import { createElement as h, version } from 'react';
import { renderToString, version as domVersion } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { isRxSliceError, SliceNotRegisteredError } from '../../src/index';
import { MachineNotInstalledError } from '../../src/machines/errors';
import { defineMachine } from '../../src/index';
import { SessionNotProvidedError, SessionProvider, useComputed, useComputedFamily, useDispatch, useLatest, useMachine, useSelector, useSession, useSlice } from '../../src/react/index';
import { Door, makeSession, MessageAdded, Messages, MessagesBy, Stranger, TokensUsed, TotalHundreds, Usage } from './fixtures';

describe('the React under test', () => {
  // vitest.config.ts runs test/react twice: on the root's React 19, and (project react-18) on React 18.
  it('is the major version this vitest project names (React and React DOM alike)', () => {
    const major = process.env['RXSLICE_REACT_MAJOR'] ?? '19';
    expect([version.split('.')[0], domVersion.split('.')[0]]).toEqual([major, major]);
  });
});

describe('server rendering (react-dom/server, getServerSnapshot)', () => {
  it('renderToString shows the session as it is now', () => {
    const session = makeSession();
    session.dispatch(MessageAdded({ role: 'user', text: 'hello' }));
    session.dispatch(TokensUsed({ input: 150, output: 60 }));
    const Page = () =>
      h(
        'p',
        null,
        `${useSlice(Messages).length} message, ${useLatest(Usage)?.input} in, ${useComputed(TotalHundreds)} hundred, `,
        `${useSelector(Messages, (m) => m[0]?.text)} / ${useMachine(Door).configuration.join()}`,
      );
    expect(renderToString(h(SessionProvider, { session }, h(Page)))).toBe('<p>1 message, 150 in, 2 hundred, <!-- -->hello / closed</p>');
  });
});

describe('errors', () => {
  const render = (hook: () => unknown, session = makeSession()) => () =>
    renderToString(h(SessionProvider, { session }, h(() => (hook(), null))));
  const outside = (hook: () => unknown) => () => renderToString(h(() => (hook(), null)));

  it.each([
    ['useSession()', () => useSession()],
    ['useSlice()', () => useSlice(Messages)],
    ['useLatest()', () => useLatest(Usage)],
    ['useComputed()', () => useComputed(TotalHundreds)],
    ['useComputedFamily()', () => useComputedFamily(MessagesBy, 'user')],
    ['useSelector()', () => useSelector(Usage, (u) => u.length)],
    ['useDispatch()', () => useDispatch()],
    ['useMachine()', () => useMachine(Door)],
  ])('%s outside a SessionProvider throws SessionNotProvidedError, saying what to do', (name, hook) => {
    let caught: unknown;
    try {
      outside(hook)();
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(SessionNotProvidedError);
    expect(isRxSliceError(caught) && caught.code).toBe('SESSION_NOT_PROVIDED');
    expect((caught as Error).message).toBe(
      `${name} needs a session, but no <SessionProvider> is above this component. Wrap the tree in <SessionProvider session={session}> (createSession from 'rxslice').`,
    );
  });

  it('a slice the session does not hold throws SliceNotRegisteredError (SLICE_NOT_REGISTERED)', () => {
    for (const hook of [() => useSlice(Stranger), () => useLatest(Stranger), () => useSelector(Stranger, (s) => s)]) {
      expect(render(hook)).toThrow(SliceNotRegisteredError);
      expect(render(hook)).toThrow('Slice "stranger" is not registered. Pass it to createSession({ slices }).');
    }
  });

  it('a machine that was not installed throws MachineNotInstalledError', () => {
    const Other = defineMachine('other', { initial: 'a', states: { a: {} } });
    expect(render(() => useMachine(Other))).toThrow(MachineNotInstalledError);
  });
});
