// The internal trusted dispatch (`rxslice watch`'s events made by parseLine from a line its line
// schema accepted): the payload is not validated a second time; every other check stays.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createSession, defineEvent, defineSlice, InvalidEventError, InvalidSliceItemError, UnknownEventError, append } from '../../src/index';
import { SESSION_INTERNALS } from '../../src/session/internals';

const Counted = defineEvent('t/counted', z.object({ n: z.number().int() }));
const Undeclared = defineEvent('t/undeclared', z.object({}));
const Counts = defineSlice('counts', {
  policy: 'log',
  schema: z.number().nonnegative(),
  reducers: ({ on }) => [on(Counted, (_view, { payload }) => append(payload.n))],
});

describe('dispatchTrusted', () => {
  const open = () => createSession({ slices: [Counts], validation: 'always' });

  it('does not validate the payload again (session.dispatch does)', () => {
    const session = open();
    expect(() => session.dispatch(Counted({ n: 1.5 }))).toThrow(InvalidEventError);
    session[SESSION_INTERNALS].dispatchTrusted(Counted({ n: 1.5 }));
    expect(session.read(Counts)).toEqual([1.5]);
  });

  it('still refuses an unknown type, and still checks what the reducers return (nothing changes, no seq taken)', () => {
    const session = open();
    const internals = session[SESSION_INTERNALS];
    expect(() => internals.dispatchTrusted(Undeclared({}))).toThrow(UnknownEventError);
    expect(() => internals.dispatchTrusted(Counted({ n: -1 }))).toThrow(expect.objectContaining({ cause: expect.any(InvalidSliceItemError) }));
    expect(session.read(Counts)).toEqual([]);
    expect(session.lastSeq).toBe(0);
  });
});
