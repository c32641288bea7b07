import { describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import {
  append,
  createSession,
  defineEvent,
  defineSlice,
  DispatchInReducerError,
  DuplicateSliceError,
  InvalidEventError,
  InvalidSliceItemError,
  none,
  ReducerError,
  ReservedEventTypeError,
  SessionDisposedError,
  SliceNotRegisteredError,
  withEffects,
  type CommittedEnvelope,
  type Envelope,
  type RxSliceError,
} from '../../src/index';
import { Counter, CounterBumped, Exploded, NoteAdded, Notes, NotesCleared } from '../fixtures';

const make = (extra: Partial<Parameters<typeof createSession>[0]> = {}) =>
  createSession({ slices: [Counter, Notes], validation: 'always', ...extra });

describe('createSession: dispatch', () => {
  it('reduces every listening slice in registration order and returns the envelope', () => {
    const s = make();
    const env = s.dispatch(NoteAdded({ id: 1, text: 'a' }));
    expect(env.seq).toBe(1);
    expect(typeof env.at).toBe('number');
    expect(s.slice(Notes).all()).toEqual([{ id: 1, text: 'a' }]);
    expect(s.slice(Counter).latest()).toEqual({ n: 1 });
    expect(s.lastSeq).toBe(1);
  });

  it('assigns strictly increasing seq numbers', () => {
    const s = make();
    const seqs = [1, 2, 3].map((i) => s.dispatch(NoteAdded({ id: i, text: 'x' })).seq);
    expect(seqs).toEqual([1, 2, 3]);
  });

  it('rejects an invalid payload with zod issues, reports it, and changes nothing', () => {
    const s = make();
    const errors: RxSliceError[] = [];
    s.errors$.subscribe((e) => errors.push(e));
    const before = s.slice(Notes).version;
    let caught: unknown;
    try {
      s.dispatch(NoteAdded({ id: 1.5, text: 'a' }));
    } catch (e) {
      caught = e;
    }
    expect(caught).toBeInstanceOf(InvalidEventError);
    expect((caught as InvalidEventError).issues[0]?.path).toEqual(['id']);
    expect((caught as InvalidEventError).code).toBe('INVALID_EVENT');
    expect(errors).toEqual([caught]);
    expect(s.slice(Notes).version).toBe(before);
    expect(s.slice(Counter).latest()).toEqual({ n: 0 });
    // the rejected event did not consume a sequence number
    expect(s.dispatch(NoteAdded({ id: 1, text: 'a' })).seq).toBe(1);
  });

  it('stores the parsed payload (zod output), not the raw one', () => {
    const Trimmed = defineEvent('t/trimmed', z.object({ text: z.string().trim() }));
    const Log = defineSlice<string>('log', { policy: 'log', reducers: ({ on }) => [on(Trimmed, (_v, e) => append(e.payload.text))] });
    const s = createSession({ slices: [Log], validation: 'always' });
    s.dispatch(Trimmed({ text: '  hi  ' }));
    expect(s.slice(Log).all()).toEqual(['hi']);
  });

  it('skips validation when off', () => {
    const s = make({ validation: 'off' });
    s.dispatch(NoteAdded({ id: 1.5, text: 'a' }));
    expect(s.slice(Notes).size).toBe(1);
  });

  it('validates events registered with options.events even without reducers', () => {
    const Ping = defineEvent('t/pinged', z.object({ n: z.number() }));
    const s = make({ events: [Ping] });
    expect(() => s.dispatch(Ping({ n: 'x' as unknown as number }))).toThrow(InvalidEventError);
    expect(s.dispatch(Ping({ n: 1 })).seq).toBe(1);
  });

  it('rejects user events with the reserved prefix', () => {
    const s = make();
    expect(() => s.dispatch({ type: 'rxslice.slice.cleared', payload: { slice: 'notes' } })).toThrow(ReservedEventTypeError);
  });

  it('accepts declared events no slice listens to and still publishes them on committed$', () => {
    const s = createSession({ slices: [Notes, Counter], events: [defineEvent('other/happened', z.number())] });
    const seen: CommittedEnvelope[] = [];
    s.committed$.subscribe((c) => seen.push(c));
    s.dispatch({ type: 'other/happened', payload: 1 });
    expect(seen.map((c) => [c.event.type, c.changed])).toEqual([['other/happened', []]]);
  });
});

describe('createSession: all-or-nothing commits', () => {
  it('leaves every slice as it was when a later reducer throws', () => {
    const s = make();
    s.dispatch(NoteAdded({ id: 1, text: 'a' }));
    const counterBefore = s.slice(Counter).all();
    const notesBefore = s.slice(Notes).all();
    const emitted: unknown[] = [];
    s.slice(Counter).all$.subscribe((v) => emitted.push(v));
    let caught: unknown;
    try {
      s.dispatch(Exploded({ message: 'boom' }));
    } catch (e) {
      caught = e;
    }
    expect(caught).toBeInstanceOf(ReducerError);
    const err = caught as ReducerError;
    expect(err.code).toBe('REDUCER_FAILED');
    expect((err.cause as Error).message).toBe('boom');
    expect(err.sliceName).toBe('notes');
    expect(err.envelope.event.type).toBe('test/exploded');
    expect(err.message).toMatch(/No slice was changed/);
    // counter's reducer ran first (n + 1000) but was rolled back
    expect(s.slice(Counter).all()).toBe(counterBefore);
    expect(s.slice(Counter).latest()).toEqual({ n: 1 });
    expect(s.slice(Notes).all()).toEqual(notesBefore);
    expect(emitted).toHaveLength(1); // only the initial BehaviorSubject value
  });

  it('reports reducer errors on errors$ and stays usable', () => {
    const s = make();
    const errors: RxSliceError[] = [];
    s.errors$.subscribe((e) => errors.push(e));
    expect(() => s.dispatch(Exploded({ message: 'x' }))).toThrow(ReducerError);
    expect(errors.map((e) => e.code)).toEqual(['REDUCER_FAILED']);
    s.dispatch(NoteAdded({ id: 2, text: 'b' }));
    expect(s.slice(Notes).all()).toEqual([{ id: 2, text: 'b' }]);
  });

  it('rolls back reducer output that fails the slice schema', () => {
    const Bad = defineEvent('t/bad');
    const Items = defineSlice('items', {
      policy: 'log',
      schema: z.object({ id: z.number() }),
      reducers: ({ on }) => [on(Bad, () => append({ id: 'nope' } as unknown as { id: number }))],
    });
    const s = createSession({ slices: [Items], validation: 'always' });
    let caught: unknown;
    try {
      s.dispatch(Bad());
    } catch (e) {
      caught = e;
    }
    expect((caught as ReducerError).cause).toBeInstanceOf(InvalidSliceItemError);
    expect(s.slice(Items).size).toBe(0);
  });

  it('rejects a reducer that returns something that is not a SliceOp', () => {
    const Bad = defineEvent('t/bad');
    const Items = defineSlice<number>('items', { policy: 'log', reducers: ({ on }) => [on(Bad, () => undefined as never)] });
    const s = createSession({ slices: [Items] });
    expect(() => s.dispatch(Bad())).toThrow(/not a SliceOp/);
  });

  it('throws when a reducer dispatches, and rolls back', () => {
    let sessionRef: ReturnType<typeof createSession> | undefined;
    const Sneaky = defineEvent('t/sneaky');
    const Items = defineSlice<number>('items', {
      policy: 'log',
      reducers: ({ on }) => [
        on(Sneaky, () => {
          sessionRef?.dispatch(Sneaky());
          return append(1);
        }),
      ],
    });
    sessionRef = createSession({ slices: [Items] });
    let caught: unknown;
    try {
      sessionRef.dispatch(Sneaky());
    } catch (e) {
      caught = e;
    }
    expect((caught as ReducerError).cause).toBeInstanceOf(DispatchInReducerError);
    expect(sessionRef.slice(Items).size).toBe(0);
  });
});

describe('createSession: notifications', () => {
  it('emits slice observables only when their slice changed', () => {
    const s = make();
    const counter = vi.fn();
    const notes = vi.fn();
    s.slice(Counter).all$.subscribe(counter);
    s.slice(Notes).all$.subscribe(notes);
    s.dispatch(CounterBumped({ by: 2 }));
    s.dispatch(NotesCleared()); // counter reducer returns none(); notes has no reducer
    expect(counter).toHaveBeenCalledTimes(2);
    expect(notes).toHaveBeenCalledTimes(1);
  });

  it('emits latest$ only when the latest item changed', () => {
    const s = make();
    const seen: unknown[] = [];
    s.slice(Notes).latest$.subscribe((v) => seen.push(v));
    s.dispatch(NoteAdded({ id: 1, text: 'a' }));
    s.dispatch(NoteAdded({ id: 2, text: 'b' }));
    expect(seen).toEqual([undefined, { id: 1, text: 'a' }, { id: 2, text: 'b' }]);
  });

  it('hands out frozen items and read-only arrays', () => {
    const s = make();
    s.dispatch(NoteAdded({ id: 1, text: 'a' }));
    const all = s.slice(Notes).all();
    expect(Object.isFrozen(all[0])).toBe(true);
    expect(() => (all as unknown[]).push(1)).toThrow(TypeError);
  });

  it('notifies slices, then committed$, with the changed slice names', () => {
    const s = make();
    const order: string[] = [];
    s.slice(Notes).all$.subscribe(() => order.push('notes'));
    s.committed$.subscribe((c) => order.push(`committed:${c.changed.join(',')}`));
    order.length = 0;
    s.dispatch(NoteAdded({ id: 1, text: 'a' }));
    expect(order).toEqual(['notes', 'committed:counter,notes']);
  });

  it('queues dispatches from subscribers and runs them after the current commit, FIFO', () => {
    const s = make();
    const log: string[] = [];
    s.committed$.subscribe((c) => {
      log.push(`${c.seq}:${c.event.type}`);
      if (c.event.type === 'notes/added' && c.seq === 1) {
        s.dispatch(CounterBumped({ by: 10 }));
        s.dispatch(CounterBumped({ by: 20 }));
        log.push('after follow-up dispatches');
      }
    });
    s.dispatch(NoteAdded({ id: 1, text: 'a' }));
    expect(log).toEqual(['1:notes/added', 'after follow-up dispatches', '2:counter/bumped', '3:counter/bumped']);
    expect(s.slice(Counter).latest()).toEqual({ n: 31 });
  });

  it('reports a failing queued follow-up on errors$ without failing the dispatch that caused it', () => {
    const s = make();
    const errors: RxSliceError[] = [];
    s.errors$.subscribe((e) => errors.push(e));
    s.committed$.subscribe((c) => {
      if (NoteAdded.match(c.event)) s.dispatch(Exploded({ message: 'follow-up failed' }));
    });
    expect(() => s.dispatch(NoteAdded({ id: 1, text: 'a' }))).not.toThrow();
    expect(errors.map((e) => (e as ReducerError).envelope.event.type)).toEqual(['test/exploded']);
    expect(s.slice(Notes).size).toBe(1);
    // the next failing dispatch of its own still throws
    expect(() => s.dispatch(Exploded({ message: 'direct' }))).toThrow(ReducerError);
  });

  it('batch holds notifications until the end: each changed slice emits once', () => {
    const s = make();
    const counter = vi.fn();
    const committed = vi.fn();
    s.slice(Counter).all$.subscribe(counter);
    s.committed$.subscribe(committed);
    const result = s.batch(() => {
      s.dispatch(CounterBumped({ by: 1 }));
      s.dispatch(CounterBumped({ by: 1 }));
      expect(s.slice(Counter).latest()).toEqual({ n: 2 }); // state is visible inside the batch
      expect(counter).toHaveBeenCalledTimes(1);
      return 'done';
    });
    expect(result).toBe('done');
    expect(counter).toHaveBeenCalledTimes(2);
    expect(committed).toHaveBeenCalledTimes(2);
  });

  it('publishes effects returned with withEffects on committed$', () => {
    const Paid = defineEvent('shop/paid', z.object({ id: z.number() }));
    const Orders = defineSlice<number>('orders', {
      policy: 'log',
      reducers: ({ on }) => [on(Paid, (_v, e) => withEffects(append(e.payload.id), [{ type: 'mail/send', payload: e.payload.id }]))],
    });
    const s = createSession({ slices: [Orders] });
    const effects: unknown[] = [];
    s.committed$.subscribe((c) => effects.push(...c.effects));
    s.dispatch(Paid({ id: 7 }));
    expect(effects).toEqual([{ type: 'mail/send', payload: 7 }]);
  });
});

describe('createSession: middleware', () => {
  it('runs operator middleware on the envelope stream (filter, map)', async () => {
    const { filter, map } = await import('rxjs');
    const s = make({
      middleware: {
        operators: [
          filter((env: Envelope) => !(NoteAdded.match(env.event) && env.event.payload.text === 'spam')),
          map((env: Envelope) => ({ ...env, meta: { ...env.meta, source: 'enriched' } })),
        ],
      },
    });
    const metas: unknown[] = [];
    s.committed$.subscribe((c) => metas.push(c.meta.source));
    s.dispatch(NoteAdded({ id: 1, text: 'spam' }));
    s.dispatch(NoteAdded({ id: 2, text: 'ham' }));
    expect(s.slice(Notes).all()).toEqual([{ id: 2, text: 'ham' }]);
    expect(metas).toEqual(['enriched']);
  });

  it('wraps reducers in global then per-slice middleware, with a full context', () => {
    const calls: string[] = [];
    const Tagged = defineSlice<string>('tagged', {
      policy: 'log',
      reducers: ({ on }) => [on(NoteAdded, (_v, e) => append(e.payload.text), 'appendText')],
      middleware: [
        (ctx, next) => {
          calls.push(`slice:${ctx.slice}:${ctx.reducerName}`);
          return next();
        },
      ],
    });
    const s = createSession({
      slices: [Tagged],
      middleware: {
        reducers: [
          (ctx, next) => {
            calls.push(`global:${ctx.eventType}:${ctx.previous.size}:${ctx.metadata['source'] as string}`);
            return next();
          },
        ],
      },
    });
    s.dispatch(NoteAdded({ id: 1, text: 'a' }), { source: 'test' });
    expect(calls).toEqual(['global:notes/added:0:test', 'slice:tagged:appendText']);
    expect(s.slice(Tagged).all()).toEqual(['a']);
  });

  it('lets reducer middleware short-circuit and transform errors', () => {
    class Friendly extends Error {}
    const s = make({
      middleware: {
        reducers: [
          (ctx, next) => {
            if (ctx.slice === 'counter' && ctx.eventType === 'notes/added') return none();
            try {
              return next();
            } catch (e) {
              throw new Friendly(`friendly: ${(e as Error).message}`);
            }
          },
        ],
      },
    });
    s.dispatch(NoteAdded({ id: 1, text: 'a' }));
    expect(s.slice(Counter).latest()).toEqual({ n: 0 });
    let caught: unknown;
    try {
      s.dispatch(Exploded({ message: 'boom' }));
    } catch (e) {
      caught = e;
    }
    expect((caught as ReducerError).cause).toBeInstanceOf(Friendly);
  });

  it('throws a middleware error as a ReducerError with nothing changed', () => {
    const s = make({ middleware: { reducers: [() => { throw new Error('mw'); }] } });
    expect(() => s.dispatch(CounterBumped({ by: 1 }))).toThrow(ReducerError);
    expect(s.slice(Counter).latest()).toEqual({ n: 0 });
  });
});

describe('createSession: slice accessors and system events', () => {
  it('reads with where, at, size, isEmpty', () => {
    const s = make();
    for (let i = 1; i <= 4; i++) s.dispatch(NoteAdded({ id: i, text: `t${i}` }));
    const notes = s.slice(Notes);
    expect(notes.where((n) => n.id % 2 === 0).map((n) => n.id)).toEqual([2, 4]);
    expect(notes.at(-1)?.id).toBe(4);
    expect(notes.size).toBe(4);
    expect(notes.isEmpty).toBe(false);
    expect(s.read(Notes)).toHaveLength(4);
  });

  it('seeds, clears and resets through rxslice.* events on the stream', () => {
    const s = make();
    const types: string[] = [];
    s.events$.subscribe((e) => types.push(e.event.type));
    s.slice(Notes).seed([{ id: 1, text: 'a' }, { id: 2, text: 'b' }]);
    expect(s.slice(Notes).size).toBe(2);
    s.slice(Notes).clear();
    expect(s.slice(Notes).size).toBe(0);
    s.dispatch(CounterBumped({ by: 5 }));
    s.reset({ to: 'initial' });
    expect(s.slice(Counter).latest()).toEqual({ n: 0 });
    s.reset();
    expect(s.slice(Counter).isEmpty).toBe(true);
    expect(types).toEqual(['rxslice.slice.seeded', 'rxslice.slice.cleared', 'counter/bumped', 'rxslice.session.reset', 'rxslice.session.reset']);
  });

  it('validates seeds against the schema and changes nothing when one is invalid', () => {
    const s = make();
    expect(() => s.slice(Notes).seed([{ id: 1, text: 'a' }, { id: 'x' } as never])).toThrow(InvalidSliceItemError);
    expect(s.slice(Notes).size).toBe(0);
    expect(s.lastSeq).toBe(0);
  });

  it('registers and removes reducers at run time', () => {
    const s = make();
    const remove = s.slice(Notes).register(CounterBumped, (_v, e) => append({ id: e.payload.by, text: 'bump' }));
    s.dispatch(CounterBumped({ by: 3 }));
    expect(s.slice(Notes).all()).toEqual([{ id: 3, text: 'bump' }]);
    remove();
    s.dispatch(CounterBumped({ by: 4 }));
    expect(s.slice(Notes).size).toBe(1);
  });

  it('rejects slices that are not registered and duplicate names', () => {
    const s = make();
    const Other = defineSlice('other', { policy: 'state' });
    expect(() => s.slice(Other)).toThrow(SliceNotRegisteredError);
    expect(() => createSession({ slices: [Notes, Notes] })).toThrow(DuplicateSliceError);
  });

  it('completes observables on dispose and rejects further dispatches', () => {
    const s = make();
    const complete = vi.fn();
    s.slice(Notes).all$.subscribe({ complete });
    s.committed$.subscribe({ complete });
    s.dispose();
    s.dispose();
    expect(complete).toHaveBeenCalledTimes(2);
    expect(() => s.dispatch(NoteAdded({ id: 1, text: 'a' }))).toThrow(SessionDisposedError);
  });
});

describe('createSession: bad input and failing middleware', () => {
  it('rejects something that is not an event with a clear error', () => {
    const s = make();
    expect(() => s.dispatch(undefined as never)).toThrow(/dispatch expects an event object/);
    expect(() => s.dispatch({ payload: 1 } as never)).toThrow(InvalidEventError);
    expect(s.lastSeq).toBe(0);
  });

  it('rejects the event an operator middleware fails on (dispatch throws, errors$ reports) and keeps accepting events', async () => {
    const { map } = await import('rxjs');
    const s = make({
      middleware: {
        operators: [
          map((env: Envelope) => {
            if (NoteAdded.match(env.event) && env.event.payload.text === 'bad') throw new Error('operator failed');
            return env;
          }),
        ],
      },
    });
    const errors: RxSliceError[] = [];
    s.errors$.subscribe((e) => errors.push(e));
    expect(() => s.dispatch(NoteAdded({ id: 1, text: 'bad' }))).toThrow(ReducerError);
    s.dispatch(NoteAdded({ id: 2, text: 'good' }));
    expect(errors.map((e) => (e.cause as Error).message)).toEqual(['operator failed']);
    expect(s.slice(Notes).all()).toEqual([{ id: 2, text: 'good' }]);
  });
});
