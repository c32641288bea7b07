// Error messages quote at most a bounded prefix of a user-supplied string (200 characters and its
// length; a cause's message 1000), whatever the input; the whole value stays on the error.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { append, createSession, defineEvent, defineSlice, snapshotFromJSON } from '../../src/index';
import { RxSliceError } from '../../src/internal/errors';
import { clip, quote } from '../../src/internal/quote';
import { SliceNotRegisteredError } from '../../src/session/errors';
import { InvalidSagaInputError } from '../../src/sagas/errors';
import { CorruptStorageError } from '../../src/jsonl/journal-format';

const TEN_MB = 10 * 1024 * 1024;
const huge = 'x'.repeat(TEN_MB);
/** Longest message any of these errors may have: its own words plus a few bounded quotes. */
const MAX_MESSAGE = 2000;

const Noted = defineEvent('notes/noted', z.object({ text: z.string(), kind: z.enum(['a', 'b']) }));
const Tagged = defineEvent('notes/tagged', z.record(z.string(), z.number()));
const Notes = defineSlice('notes', {
  policy: 'log',
  reducers: ({ on }) => [
    on(Noted, (_v, e) => {
      if (e.payload.text === 'boom') throw new Error(`boom ${huge}`);
      return append(e.payload);
    }),
  ],
});

const thrown = (f: () => unknown): RxSliceError => {
  try {
    f();
  } catch (e) {
    return e as RxSliceError;
  }
  throw new Error('expected a throw');
};

describe('bounded error messages', () => {
  it('quote and clip keep short strings whole and bound long ones, with their length', () => {
    expect(quote('plan/stepAdded')).toBe('"plan/stepAdded"');
    expect(quote('y'.repeat(200))).toBe(`"${'y'.repeat(200)}"`);
    expect(quote('y'.repeat(201))).toBe(`"${'y'.repeat(200)}…" (201 characters)`);
    expect(clip(huge)).toBe(`${'x'.repeat(200)}… (${TEN_MB} characters)`);
    // A surrogate pair is never cut in two.
    expect(quote(`${'y'.repeat(199)}😀z`)).toBe(`"${'y'.repeat(199)}…" (202 characters)`);
    expect(quote({ toString: () => { throw new Error('hostile'); } })).toBe('"(a value that cannot be shown)"');
  });

  it('dispatching an event whose type is a 10 MB string: UnknownEventError quotes 200 characters and the length', () => {
    const session = createSession({ slices: [Notes] });
    const e = thrown(() => session.dispatch({ type: huge, payload: {} } as never));
    expect(e.code).toBe('UNKNOWN_EVENT');
    expect(e.message.length).toBeLessThan(MAX_MESSAGE);
    expect(e.message).toContain(`"${'x'.repeat(200)}…" (${TEN_MB} characters)`);
    expect((e as unknown as { eventType: string }).eventType).toHaveLength(TEN_MB);
  });

  it('an invalid payload whose bad value sits under a 10 MB key: the issue paths quoted are bounded too', () => {
    const session = createSession({ slices: [Notes], events: [Tagged] });
    const e = thrown(() => session.dispatch(Tagged({ [huge]: 'not a number' as unknown as number })));
    expect(e.code).toBe('INVALID_EVENT');
    expect(e.message.length).toBeLessThan(MAX_MESSAGE);
    expect((e as unknown as { issues: { path: string[] }[] }).issues[0]?.path[0]).toHaveLength(TEN_MB);
  });

  it("a reducer throwing an error with a 10 MB message: ReducerError bounds it and keeps the cause whole", () => {
    const session = createSession({ slices: [Notes] });
    const e = thrown(() => session.dispatch(Noted({ text: 'boom', kind: 'a' })));
    expect(e.code).toBe('REDUCER_FAILED');
    expect(e.message.length).toBeLessThan(MAX_MESSAGE);
    expect(e.message).toContain(`(${TEN_MB + 5} characters)`);
    expect((e.cause as Error).message).toHaveLength(TEN_MB + 5);
  });

  it('untrusted snapshot JSON naming a slice with a 10 MB name: UnknownSliceError is bounded', () => {
    const e = thrown(() => snapshotFromJSON(JSON.stringify({ format: 'rxslice.snapshot', formatVersion: 1, slices: { [huge]: {} } }), [Notes], { maxBytes: 2 * TEN_MB }));
    expect(e.code).toBe('UNKNOWN_SLICE');
    expect(e.message.length).toBeLessThan(MAX_MESSAGE);
    expect((e as unknown as { sliceName: string }).sliceName).toHaveLength(TEN_MB);
  });

  it('any RxSliceError message is cut at 8000 characters, whatever built it', () => {
    const e = new RxSliceError('SOME_CODE', `built without quote: ${huge}`);
    expect(e.message.length).toBeLessThan(8100);
    expect(e.message).toMatch(/… \(\d{8} characters\)$/);
  });

  it('other classes: slice name, saga input issues, a damaged storage file path', () => {
    for (const e of [
      new SliceNotRegisteredError(huge),
      new InvalidSagaInputError(huge, [{ code: 'custom', path: [huge, 1], message: huge }]),
      new CorruptStorageError(`/tmp/${huge}`, 7, `unexpected ${huge}`),
    ]) {
      expect(e.message.length, e.name).toBeLessThan(MAX_MESSAGE);
      expect(e.message, e.name).toMatch(/…"? \(\d{8} characters\)/);
    }
  });
});
