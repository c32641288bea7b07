import type { Signal } from '@angular/core';
import { describe, expectTypeOf, it } from 'vitest';
import { injectComputed, injectDispatch, injectLatest, injectMachine, injectSession, injectSlice } from '../../src/angular/index';
import type { Session } from '../../src/index';
import { useComputed, useDispatch, useLatest, useMachine, useSelector, useSession, useSlice } from '../../src/react/index';
import { Door, makeSession, Messages, TotalHundreds, Usage } from './fixtures';

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

describe('rxslice/angular types', () => {
  it('return Signals of the slice, computed and machine types', () => {
    expectTypeOf(injectSlice(Messages)).toEqualTypeOf<Signal<readonly Message[]>>();
    expectTypeOf(injectLatest(Usage)).toEqualTypeOf<Signal<{ input: number; output: number } | undefined>>();
    expectTypeOf(injectComputed(TotalHundreds)).toEqualTypeOf<Signal<number>>();
    expectTypeOf(injectMachine(Door).configuration).toEqualTypeOf<Signal<readonly ('closed' | 'open')[]>>();
    expectTypeOf(injectSession<AppSession>()).toEqualTypeOf<AppSession>();
    expectTypeOf(injectDispatch<AppSession>()).toEqualTypeOf<AppSession['dispatch']>();
  });
});
