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
import { RetryPolicy } from '../../src/effects/retry-policy';
import { MissingEffectHandlerError } from '../../src/effects/errors';
import { SagaNotRecordedError } from '../../src/sagas/errors';
import { SnapshotSaveError, StorageAheadError } from '../../src/session/errors';
import { SignalClaimLostError, SignalDirectoryError, SignalFileRejectedError, SignalHandlerError } from '../../src/jsonl/signal-errors';
import { InvalidSignalError } from '../../src/jsonl/signal-channel';
import { InvalidBudgetsError } from '../../src/watch/budgets';
import { NotificationRejectedError } from '../../src/transcripts/notifications';
import { InvalidWindowError } from '../../src/windows/invalid-window-error';
import { refusal } from '../../src/cli/input-kind';
import { refuse } from '../../src/machines/actions';
import { checkUpdateIndex } from '../../src/storage/memory-content';
import { migrationConfigProblem } from '../../src/slices/migrations';
import { createSharedSession } from '../../src/postgres/index';

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

/** What `f` threw or rejected with (an error of any class: plain `Error`s are not cut at 8000 characters). */
async function failure(f: () => unknown): Promise<Error> {
  try {
    await f();
  } catch (e) {
    return e as Error;
  }
  throw new Error('expected a failure');
}

/**
 * Issue 37, "an error message carries untrusted input whole": each row builds the error from a 10 MB
 * user-supplied string (an event type, a slice or saga name, an id, a path, a reason, an option
 * value) by the path a user or a file takes, and the message quotes at most a bounded prefix of it.
 */
const ROWS: readonly (readonly [string, () => unknown])[] = [
  ['runEffect after dispose: the effect type', () => {
    const session = createSession({ slices: [Notes] });
    session.dispose();
    return session.runEffect({ type: huge, payload: null });
  }],
  ['MissingEffectHandlerError: the effect type (twice in its advice)', () => { throw new MissingEffectHandlerError(huge); }],
  ['SagaNotRecordedError: saga, id and transition', () => { throw new SagaNotRecordedError(huge, huge, huge, new Error(huge)); }],
  ['StorageAheadError: the slice name', () => { throw new StorageAheadError(huge, 3, 1); }],
  ['SnapshotSaveError: id, tag and cause', () => { throw new SnapshotSaveError(huge, huge, new Error(huge)); }],
  ['restore({ slices }) holding a value that is no name', () => {
    const session = createSession({ slices: [Notes] });
    return session.restore(session.snapshot(), { slices: [10n ** 250_000n] as never });
  }],
  ['RetryPolicy.exponential: a jitter that is not one', () => RetryPolicy.exponential({ jitter: huge as never })],
  ['RetryPolicy.exponential: a maxAttempts that is a string', () => RetryPolicy.exponential({ maxAttempts: huge as never })],
  ['RetryPolicy.fixed: a delay that is a string', () => RetryPolicy.fixed(huge as never, 1)],
  ['refuse(): a reason that is not a string', () => refuse({ why: huge } as never)],
  ['defineSlice: a policy that is neither', () => defineSlice('s', { policy: huge as never, reducers: () => [] })],
  ['a slice version that is a string', () => { throw new Error(migrationConfigProblem(huge, undefined)); }],
  ['updateAt: an index that is a string', () => checkUpdateIndex(huge as never, 3)],
  ['snapshotCatalogue: keepLast', () => createSession({ slices: [Notes], snapshotCatalogue: { keepLast: huge as never } })],
  ['channel replay({ fromSeq })', async () => {
    const { defineChannel } = await import('../../src/index');
    const session = createSession({ slices: [Notes] });
    const channel = session.channel(defineChannel('notes', [Noted]));
    return new Promise((resolve, reject) => channel.replay({ fromSeq: huge as never }).subscribe({ complete: () => resolve(undefined), error: reject }));
  }],
  ['createSharedSession: a sessionId over 200 characters', () => createSharedSession({ slices: [Notes], sessionId: huge, postgres: { connectionString: 'postgres://nobody@127.0.0.1:1/none' } })],
  ['signal files: path, reason detail, moved-to path', () => { throw new SignalFileRejectedError(huge, 'schema', huge, huge); }],
  ['signal claim lost: the path', () => { throw new SignalClaimLostError(huge, 'archive'); }],
  ['signal directory: path and cause', () => { throw new SignalDirectoryError(huge, 'read', new Error(huge)); }],
  ['signal handler: the signal id and cause', () => { throw new SignalHandlerError(huge, new Error(huge)); }],
  ['signal channel: its name and reason', () => { throw new InvalidSignalError(huge, huge); }],
  ['budgets file: its path and the issues', () => { throw new InvalidBudgetsError(huge, [{ path: [huge], message: huge }]); }],
  ['notification refused: the tool use id', () => { throw new NotificationRejectedError(huge, 1, true); }],
  ['window: its description and reason', () => { throw new InvalidWindowError(huge, huge); }],
  ['the command line refusing a path', () => { throw new Error(refusal('stats', huge, { kind: 'missing' } as never, 'a flight recording')); }],
];

describe('bounded error messages, every place that quotes user input (table)', () => {
  it.each(ROWS)('%s', async (_what, make) => {
    const e = await failure(make);
    expect(e).toBeInstanceOf(Error);
    expect(e.message.length).toBeLessThan(MAX_MESSAGE);
    expect(e.message).toMatch(/…"? \(\d+ characters\)/);
  });
});
