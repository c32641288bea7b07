import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { append, createSession, defineEvent, defineSlice, type CommittedEnvelope, type ReducerError, type RxSliceError, type Session } from '../../src/index';
import { InvalidTransitionError, setupMachine } from '../../src/machines/index.js';
import { SESSION_INTERNALS } from '../../src/session/internals';

const Added = defineEvent('seq/added', z.object({ n: z.number().int() }));
const Boom = defineEvent('seq/boom', z.object({}));
const Locked = defineEvent('seq/locked', z.object({}));

const Items = defineSlice('items', {
  policy: 'log',
  schema: z.number(),
  reducers: ({ on }) => [
    on(Added, (_v, e) => append(e.payload.n)),
    on(Boom, () => {
      throw new Error('boom');
    }),
  ],
});

/** A statechart that refuses `seq/locked` (no transition for it in its only state). */
const Door = setupMachine({ events: [Added, Locked] }).defineMachine('door', {
  states: { open: { on: { 'seq/added': {} } } },
});

describe('seq is gapless: only committed events take one (DESIGN "Envelope")', () => {
  it('after rejections by schema, by a throwing reducer and by a statechart refusal, the next commit takes last + 1', () => {
    // Locked is the statechart's event alone: declared, so typed dispatch takes it; a raw object
    // with a payload that fails the schema goes through the untyped Session.
    const session: Session = createSession({ slices: [Items], validation: 'always', events: [Locked] });
    session.install(Door);
    const committed: CommittedEnvelope[] = [];
    const errors: RxSliceError[] = [];
    session.committed$.subscribe((c) => committed.push(c));
    session.errors$.subscribe((e) => errors.push(e));
    session.dispatch(Added({ n: 1 }));
    const before = session.lastSeq;
    // 1. the payload fails its schema
    expect(() => session.dispatch({ type: 'seq/added', payload: { n: 'x' } })).toThrow();
    // 2. a reducer throws
    expect(() => session.dispatch(Boom({}))).toThrow();
    // 3. the statechart refuses
    expect(() => session.dispatch(Locked({}))).toThrow(InvalidTransitionError);
    expect(session.lastSeq).toBe(before);
    const env = session.dispatch(Added({ n: 2 }));
    expect(env.seq).toBe(before + 1);
    const seqs = committed.filter((c) => !c.event.type.startsWith('rxslice.')).map((c) => c.seq);
    expect(seqs).toEqual([before, before + 1]);
    // Every commit's seq (library events included) is the previous one + 1.
    committed.forEach((c, i) => expect(c.seq).toBe(i === 0 ? committed[0]!.seq : committed[i - 1]!.seq + 1));
    // The throwing reducer's failure is reported with the seq that was current.
    const reducerFailure = errors.find((e) => e.code === 'REDUCER_FAILED') as ReducerError;
    expect(reducerFailure.envelope.seq).toBe(before);
    expect(session.slice(Items).all()).toEqual([1, 2]);
  });

  it('a rejected envelope queued between two others: the later one is renumbered, FIFO order kept', () => {
    const session = createSession({ slices: [Items] });
    const seen: [number, string][] = [];
    session.committed$.subscribe((c) => {
      seen.push([c.seq, c.event.type]);
      if (c.event.type === 'seq/added' && (c.event.payload as { n: number }).n === 1) {
        // Re-entrant: both are queued (numbered 2 and 3), the first fails.
        session.dispatch(Boom({}));
        session.dispatch(Added({ n: 3 }));
      }
    });
    session.dispatch(Added({ n: 1 }));
    session.dispatch(Added({ n: 4 }));
    expect(seen).toEqual([
      [1, 'seq/added'],
      [2, 'seq/added'],
      [3, 'seq/added'],
    ]);
    expect(session.slice(Items).all()).toEqual([1, 3, 4]);
    expect(session.lastSeq).toBe(3);
  });

  it('a shared-session (applyLogged) envelope keeps the log number even when its reducers fail', () => {
    const session = createSession({ slices: [Items] });
    const internals = session[SESSION_INTERNALS];
    internals.applyLogged({ seq: 1, at: 0, event: Added({ n: 1 }), meta: {} });
    expect(() => internals.applyLogged({ seq: 2, at: 0, event: Boom({}), meta: {} })).toThrow();
    internals.applyLogged({ seq: 3, at: 0, event: Added({ n: 3 }), meta: {} });
    expect(session.lastSeq).toBe(3);
    expect(session.slice(Items).all()).toEqual([1, 3]);
  });
});
