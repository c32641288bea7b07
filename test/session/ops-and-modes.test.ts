import { afterEach, describe, expect, it, vi } from 'vitest';
import { VirtualTimeScheduler } from 'rxjs';
import { z } from 'zod';
import {
  append,
  clear,
  createSession,
  defineEvent,
  defineSlice,
  extend,
  InvalidEventError,
  replace,
  SessionReset,
  SessionRestored,
  SliceCleared,
  SliceSeeded,
  UnknownEventError,
  type ReducerContext,
  type Session,
} from '../../src/index';
import { Counter, NoteAdded, Notes } from '../fixtures';

/** Each slice op applied by a reducer in a session (not only as data), one version per event. */
describe('slice ops through the pipeline', () => {
  const Added = defineEvent('n/added', z.object({ values: z.array(z.number()) }));
  const Replaced = defineEvent('n/replaced', z.object({ values: z.array(z.number()) }));
  const Pruned = defineEvent('n/pruned', z.object({ below: z.number() }));
  const Wiped = defineEvent('n/wiped');
  const Numbers = defineSlice<number>('numbers', {
    policy: 'log',
    reducers: ({ on }) => [
      on(Added, (_v, e) => (e.payload.values.length === 1 ? append(e.payload.values[0] as number) : extend(e.payload.values))),
      on(Replaced, (_v, e) => replace(e.payload.values)),
      on(Pruned, (_v, e) => clear<number>((n) => n < e.payload.below)),
      on(Wiped, () => clear()),
    ],
  });

  it('append, extend, replace, clear(predicate) and clear() each commit one version and emit once', () => {
    const s = createSession({ slices: [Numbers] });
    const seen: (readonly number[])[] = [];
    s.slice(Numbers).all$.subscribe((v) => seen.push(v));
    s.dispatch(Added({ values: [1] }));
    s.dispatch(Added({ values: [2, 3, 4] }));
    expect(s.slice(Numbers).all()).toEqual([1, 2, 3, 4]);
    s.dispatch(Pruned({ below: 3 })); // clear(predicate) removes the matching items
    expect(s.slice(Numbers).all()).toEqual([3, 4]);
    s.dispatch(Replaced({ values: [9, 8] }));
    expect(s.slice(Numbers).all()).toEqual([9, 8]);
    s.dispatch(Wiped());
    expect(s.slice(Numbers).all()).toEqual([]);
    expect(s.slice(Numbers).version).toBe(5);
    expect(seen).toEqual([[], [1], [1, 2, 3, 4], [3, 4], [9, 8], []]);
  });

  it('an op that changes nothing commits nothing: clear(predicate) matching no item, clear() of an empty slice', () => {
    const s = createSession({ slices: [Numbers] });
    s.dispatch(Added({ values: [5, 6] }));
    const emitted = vi.fn();
    s.slice(Numbers).all$.subscribe(emitted);
    const changed: string[][] = [];
    s.committed$.subscribe((c) => changed.push([...c.changed]));
    s.dispatch(Pruned({ below: 0 }));
    s.dispatch(Wiped());
    s.dispatch(Wiped());
    expect(changed).toEqual([[], ['numbers'], []]);
    expect(emitted).toHaveBeenCalledTimes(2); // on subscribe, then the one real change
  });
});

describe('reducer context', () => {
  it('hands every reducer the event, its seq and time, and a reader of the committed session', () => {
    // the context is valid during the call only (one object refilled per call): copy what you keep
    const contexts: Pick<ReducerContext<unknown>, 'event' | 'seq' | 'at'>[] = [];
    const Spy = defineSlice<string>('spy', {
      policy: 'log',
      reducers: ({ on }) => [
        on(NoteAdded, (_v, e, ctx) => {
          contexts.push({ event: ctx.event, seq: ctx.seq, at: ctx.at });
          // the session reader sees committed state: Counter was not yet changed by this event
          return append(`${e.payload.text}:${ctx.session.read(Counter).at(-1)?.n}`);
        }),
      ],
    });
    const s = createSession({ slices: [Spy, Counter], validation: 'always' });
    s.dispatch(NoteAdded({ id: 1, text: 'a' }));
    s.dispatch(NoteAdded({ id: 2, text: 'b' }));
    expect(s.slice(Spy).all()).toEqual(['a:0', 'b:1']);
    expect(contexts.map((c) => [c.event, c.seq, typeof c.at])).toEqual([
      [NoteAdded({ id: 1, text: 'a' }), 1, 'number'],
      [NoteAdded({ id: 2, text: 'b' }), 2, 'number'],
    ]);
  });
});

describe('reducer context: the envelope fields every context shares', () => {
  it('each reducer and its middleware read the envelope being reduced, also for envelopes queued by a subscriber', () => {
    const seen: string[] = [];
    const note = (who: string, ctx: ReducerContext<unknown>): void => {
      const { eventType, seq, metadata } = ctx;
      seen.push(`${who}:${eventType}:${seq}:${String(metadata['by'])}:${ctx.at}:${(ctx.event.payload as { id: number }).id}:${ctx.slice}`);
    };
    const A = defineSlice<number>('a', { policy: 'log', reducers: ({ on }) => [on(NoteAdded, (_v, e, ctx) => (note('a', ctx), append(e.payload.id)))] });
    const B = defineSlice<number>('b', { policy: 'log', reducers: ({ on }) => [on(NoteAdded, (_v, e, ctx) => (note('b', ctx), append(e.payload.id * 10)))] });
    const scheduler = new VirtualTimeScheduler();
    const s = createSession({
      slices: [A, B],
      scheduler,
      middleware: { reducers: [(ctx, next) => (note('mw', ctx), next())] },
    });
    let follow = true;
    s.slice(A).latest$.subscribe((latest) => {
      // Re-entrant: queued behind the envelope being published, reduced after it.
      if (latest === 1 && follow) {
        follow = false;
        s.dispatch(NoteAdded({ id: 2, text: 'queued' }), { by: 'subscriber' });
      }
    });
    scheduler.frame = 7;
    s.dispatch(NoteAdded({ id: 1, text: 'first' }), { by: 'caller' });
    expect(seen).toEqual([
      'mw:notes/added:1:caller:7:1:a',
      'a:notes/added:1:caller:7:1:a',
      'mw:notes/added:1:caller:7:1:b',
      'b:notes/added:1:caller:7:1:b',
      'mw:notes/added:2:subscriber:7:2:a',
      'a:notes/added:2:subscriber:7:2:a',
      'mw:notes/added:2:subscriber:7:2:b',
      'b:notes/added:2:subscriber:7:2:b',
    ]);
    expect(s.slice(B).all()).toEqual([10, 20]);
  });
});

describe("validation mode 'dev' (the default) and freezing follow NODE_ENV", () => {
  afterEach(() => vi.unstubAllEnvs());

  it('validates payloads and freezes items outside production', () => {
    vi.stubEnv('NODE_ENV', 'development');
    const s = createSession({ slices: [Notes] });
    expect(() => s.dispatch(NoteAdded({ id: 1.5, text: 'a' }))).toThrow(InvalidEventError);
    s.dispatch(NoteAdded({ id: 1, text: 'a' }));
    expect(Object.isFrozen(s.slice(Notes).latest())).toBe(true);
  });

  it("skips validation and freezing in production, while 'always' still validates", () => {
    vi.stubEnv('NODE_ENV', 'production');
    const dev = createSession({ slices: [Notes], validation: 'dev' });
    dev.dispatch(NoteAdded({ id: 1.5, text: 'a' }));
    expect(dev.slice(Notes).size).toBe(1);
    expect(Object.isFrozen(dev.slice(Notes).latest())).toBe(false);
    const always = createSession({ slices: [Notes], validation: 'always' });
    expect(() => always.dispatch(NoteAdded({ id: 1.5, text: 'a' }))).toThrow(InvalidEventError);
    expect(always.slice(Notes).size).toBe(0);
  });
});

describe('system event creators', () => {
  it('match the rxslice.* events seed, clear, reset and restore put on committed$, with their payloads', () => {
    const s = createSession({ slices: [Counter, Notes] });
    const seen: string[] = [];
    s.committed$.subscribe(({ event }) => {
      if (SliceSeeded.match(event)) seen.push(`seeded ${event.payload.slice} ${event.payload.items.length}`);
      else if (SliceCleared.match(event)) seen.push(`cleared ${event.payload.slice}`);
      else if (SessionReset.match(event)) seen.push('reset');
      else if (SessionRestored.match(event)) seen.push(`restored [${event.payload.slices.join(',')}] from ${event.payload.fromSeq} ${event.payload.tag}`);
    });
    s.slice(Notes).seed([{ id: 1, text: 'a' }]);
    const snap = s.snapshot({ includeLogs: true, tag: 't1' });
    s.slice(Notes).clear();
    s.reset();
    s.restore(snap);
    expect(seen).toEqual(['seeded notes 1', 'cleared notes', 'reset', 'restored [counter,notes] from 1 t1']);
    expect([SliceSeeded.type, SliceCleared.type, SessionReset.type, SessionRestored.type]).toEqual([
      'rxslice.slice.seeded',
      'rxslice.slice.cleared',
      'rxslice.session.reset',
      'rxslice.session.restored',
    ]);
  });
});

describe('register() at run time', () => {
  it('routes and validates an event type no slice listened to when the session was created', () => {
    const Fresh = defineEvent('fresh/happened', z.object({ id: z.number() }));
    // Typed as any-event Session: what register() adds at run time is not in createSession's type.
    const s: Session = createSession({ slices: [Counter, Notes], validation: 'always' });
    expect(() => s.dispatch(Fresh({ id: 1 }))).toThrow(UnknownEventError); // nobody declares it yet
    expect(s.lastSeq).toBe(0);
    const off = s.slice(Notes).register(Fresh, (_v, e) => append({ id: e.payload.id, text: 'fresh' }));
    s.dispatch(Fresh({ id: 2 }));
    expect(s.slice(Notes).all()).toEqual([{ id: 2, text: 'fresh' }]);
    expect(() => s.dispatch(Fresh({ id: 'x' as unknown as number }))).toThrow(InvalidEventError);
    off();
    s.dispatch(Fresh({ id: 3 })); // still known (the known set only grows), no longer routed
    expect(s.slice(Notes).size).toBe(1);
    expect(s.lastSeq).toBe(2);
  });
});
