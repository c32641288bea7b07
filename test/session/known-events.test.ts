import { lastValueFrom, map, VirtualTimeScheduler } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  append,
  createSession,
  defineChannel,
  defineEffect,
  defineEvent,
  defineMachine,
  defineSaga,
  defineSlice,
  InvalidEventError,
  isRxSliceError,
  none,
  ofType,
  ReservedEventTypeError,
  setupMachine,
  step,
  UnknownEventError,
  withEffects,
  type CommittedEnvelope,
  type Event,
  type RxSliceError,
  type Session,
} from '../../src/index';
import { closestType, KnownEvents } from '../../src/session/known-events';

const Task = z.object({ title: z.string() });
const TaskAdded = defineEvent('tasks/added', Task);
const TaskRemoved = defineEvent('tasks/removed', z.object({ title: z.string() }));
const Tasks = defineSlice('tasks', {
  policy: 'log',
  schema: Task,
  reducers: ({ on }) => [on(TaskAdded, (_view, e) => append(e.payload))],
});

function watched(options: Parameters<typeof createSession>[0] = { slices: [Tasks] }) {
  const session = createSession(options);
  const errors: RxSliceError[] = [];
  const committed: CommittedEnvelope[] = [];
  session.errors$.subscribe((e) => errors.push(e));
  session.committed$.subscribe((c) => committed.push(c));
  return { session, errors, committed };
}

/** What `dispatch` threw (the test fails when it returned). */
function thrownBy(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  throw new Error('expected a throw');
}

describe('strict events: an undeclared type is rejected', () => {
  it("rejects the newcomer's misspelled type with UNKNOWN_EVENT, on errors$, nothing changed, no seq taken", () => {
    const { session, errors, committed } = watched();
    session.dispatch(TaskAdded({ title: 'a' }));
    const error = thrownBy(() => session.dispatch({ type: 'tasks/nope', payload: {} }));
    expect(error).toBeInstanceOf(UnknownEventError);
    expect(isRxSliceError(error) && error.code).toBe('UNKNOWN_EVENT');
    expect((error as UnknownEventError).eventType).toBe('tasks/nope');
    expect((error as Error).message).toMatch(/^Event "tasks\/nope" is not declared in this session\. Nothing was changed\./);
    expect((error as Error).message).toContain("createSession({ unknownEvents: 'accept' })");
    expect((error as Error).message).toContain('createSession({ events: [Creator] })');
    expect(errors).toEqual([error]);
    expect(session.lastSeq).toBe(1);
    expect(session.slice(Tasks).size).toBe(1);
    // No seq was taken: the next commit is 2.
    expect(session.dispatch(TaskAdded({ title: 'b' })).seq).toBe(2);
    expect(committed.map((c) => [c.seq, c.event.type])).toEqual([
      [1, 'tasks/added'],
      [2, 'tasks/added'],
    ]);
  });

  it('suggests the closest declared type for a typo', () => {
    const { session } = watched({ slices: [Tasks], events: [TaskRemoved] });
    const typo = thrownBy(() => session.dispatch({ type: 'tasks/aded', payload: { title: 'x' } })) as UnknownEventError;
    expect(typo.suggestion).toBe('tasks/added');
    expect(typo.message).toContain('(did you mean "tasks/added"?)');
    expect((thrownBy(() => session.dispatch({ type: 'Tasks/Removed', payload: { title: 'x' } })) as UnknownEventError).suggestion).toBe('tasks/removed');
    const far = thrownBy(() => session.dispatch({ type: 'billing/charged', payload: {} })) as UnknownEventError;
    expect(far.suggestion).toBeUndefined();
    expect(far.message).not.toContain('did you mean');
  });

  it("unknownEvents: 'accept' opts out: the undeclared event commits, changing nothing", () => {
    const { session, errors, committed } = watched({ slices: [Tasks], unknownEvents: 'accept' });
    const env = session.dispatch({ type: 'tasks/nope', payload: {} });
    expect(env.seq).toBe(1);
    expect(committed.map((c) => [c.event.type, c.changed])).toEqual([['tasks/nope', []]]);
    expect(errors).toEqual([]);
  });

  it('library events (seed, clear, reset, restore) are never rejected', () => {
    const { session, errors } = watched();
    const before = session.snapshot({ includeLogs: true });
    session.slice(Tasks).seed([{ title: 'a' }]);
    session.slice(Tasks).clear();
    session.reset();
    session.restore(before);
    expect(errors).toEqual([]);
    expect(session.lastSeq).toBe(4);
  });

  it('the check comes after the reserved-prefix check, which is reported on errors$ too', () => {
    const { session, errors } = watched();
    const error = thrownBy(() => session.dispatch({ type: 'rxslice.slice.cleared', payload: { slice: 'tasks' } }));
    expect(error).toBeInstanceOf(ReservedEventTypeError);
    expect(errors).toEqual([error]);
    expect(session.lastSeq).toBe(0);
  });
});

describe('what declares an event type', () => {
  it('a slice reducer and the events option (schemas validate, no reducer needed)', () => {
    const { session, committed } = watched({ slices: [Tasks], events: [TaskRemoved] });
    session.dispatch(TaskAdded({ title: 'a' }));
    session.dispatch(TaskRemoved({ title: 'a' }));
    expect(() => session.dispatch(TaskRemoved({ title: 1 as unknown as string }))).toThrow(InvalidEventError);
    expect(committed.map((c) => c.event.type)).toEqual(['tasks/added', 'tasks/removed']);
  });

  it('a reducer registered at run time (handle.register), and it stays declared after removal', () => {
    const { session } = watched();
    expect(() => session.dispatch(TaskRemoved({ title: 'a' }))).toThrow(UnknownEventError);
    const off = session.slice(Tasks).register(TaskRemoved, () => none());
    session.dispatch(TaskRemoved({ title: 'a' }));
    off();
    expect(session.dispatch(TaskRemoved({ title: 'b' })).seq).toBe(2);
  });

  it('channels: given to createSession, or opened later', () => {
    const Removals = defineChannel('removals', [TaskRemoved]);
    const given = createSession({ slices: [Tasks], channels: [Removals] });
    expect(given.dispatch(TaskRemoved({ title: 'a' })).seq).toBe(1);
    // Typed as any-event Session: channels opened later are not known to the type of createSession's result.
    const later: Session = createSession({ slices: [Tasks] });
    expect(() => later.dispatch(TaskRemoved({ title: 'a' }))).toThrow(UnknownEventError);
    later.channel(Removals).publish(TaskRemoved({ title: 'a' }));
    expect(later.lastSeq).toBe(1);
  });

  it('an installed machine: its transitions (SCXML prefixes included) and its declared events', () => {
    const Started = defineEvent('job/started');
    const Failed = defineEvent('job.failed.timeout');
    const Paused = defineEvent('job/paused');
    const Job = defineMachine('job', {
      initial: 'idle',
      states: { idle: { on: { 'job/started': 'running' } }, running: { on: { 'job.failed': 'idle' } } },
    });
    // Declares job/paused without a transition for it.
    const Watch = setupMachine({ events: [Paused] }).defineMachine('watch', { invalidTransitions: 'ignore', states: { watching: {} } });
    const session = createSession({ slices: [] });
    expect(() => session.dispatch(Started())).toThrow(UnknownEventError);
    expect(() => session.dispatch(Paused())).toThrow(UnknownEventError);
    const job = session.install(Job);
    session.install(Watch);
    session.dispatch(Paused());
    session.dispatch(Started());
    session.dispatch(Failed()); // named by the prefix descriptor "job.failed"
    expect(job.matches('idle')).toBe(true);
    expect(() => session.dispatch({ type: 'job.failedx', payload: undefined })).toThrow(UnknownEventError);
    expect(() => session.dispatch({ type: 'job/pause', payload: undefined })).toThrow(/did you mean "job\/paused"/);
    expect(session.lastSeq).toBe(3);
  });

  it("a saga's startOn, from createSession({ sagas })", () => {
    const Deploy = defineEvent('deploy/requested', z.object({ app: z.string() }));
    const Saga = defineSaga('deploy', { input: z.object({ app: z.string() }), startOn: Deploy, steps: [step('a', { run: () => 1 })] });
    const session = createSession({ slices: [], sagas: [Saga], scheduler: new VirtualTimeScheduler() });
    expect(session.dispatch(Deploy({ app: 'web' })).seq).toBe(1);
  });

  it("an effect's compensation and success events", async () => {
    const Saved = defineEvent('store/saved', z.object({ id: z.number() }));
    const Undone = defineEvent('store/undone', z.object({ id: z.number() }));
    const Save = defineEffect('store/save', z.object({ id: z.number(), fail: z.boolean() }), {
      onSuccess: (e) => Saved({ id: e.payload.id }),
      compensate: (e) => Undone({ id: e.payload.id }),
    });
    const { session, errors, committed } = watched({ slices: [] });
    session.handle(Save, (e) => (e.payload.fail ? Promise.reject(new Error('disk full')) : Promise.resolve(e.payload.id)));
    await lastValueFrom(session.runEffect(Save({ id: 1, fail: false })));
    await expect(lastValueFrom(session.runEffect(Save({ id: 2, fail: true })))).rejects.toThrow();
    const types = committed.map((c) => c.event.type);
    expect(types).toContain('store/saved');
    expect(types).toContain('store/undone');
    expect(errors.filter((e) => e.code === 'UNKNOWN_EVENT')).toEqual([]);
    // Once an effect made it, the application may dispatch it too.
    session.dispatch(Undone({ id: 3 }));
  });

  it("an epic's events option; an undeclared output is rejected and reported twice (session, then epic)", () => {
    const Pinged = defineEvent('net/pinged', z.object({ n: z.number() }));
    const Ponged = defineEvent('net/ponged', z.object({ n: z.number() }));
    const Pings = defineSlice('pings', { policy: 'log', reducers: ({ on }) => [on(Pinged, (_v, e) => append(e.payload.n))] });
    const pong = (events$: Parameters<Parameters<ReturnType<typeof createSession>['run']>[0]>[0]) =>
      events$.pipe(ofType(Pinged), map((env): Event => Ponged({ n: env.event.payload.n })));
    const { session, errors, committed } = watched({ slices: [Pings] });
    const silent = session.run(pong, { name: 'undeclared' });
    session.dispatch(Pinged({ n: 1 }));
    expect(errors.map((e) => e.code)).toEqual(['UNKNOWN_EVENT', 'INVALID_EPIC_OUTPUT']);
    silent.stop();
    session.run(pong, { name: 'declared', events: [Ponged] });
    session.dispatch(Pinged({ n: 2 }));
    expect(committed.map((c) => c.event.type)).toEqual(['net/pinged', 'net/pinged', 'net/ponged']);
  });

  it('a reducer effect requested with withEffects is not an event: it needs no declaration', () => {
    const Notify = defineEffect('mail/send', z.object({ to: z.string() }));
    const Mailer = defineSlice('mailer', { policy: 'log', reducers: ({ on }) => [on(TaskAdded, () => withEffects(none(), [Notify({ to: 'a' })]))] });
    const { session, errors } = watched({ slices: [Mailer] });
    session.handle(Notify, () => Promise.resolve());
    session.dispatch(TaskAdded({ title: 'a' }));
    expect(errors).toEqual([]);
  });
});

describe('every malformed dispatch is thrown and reported on errors$ (issue 23, item 6)', () => {
  it.each([
    ['null', null],
    ['undefined', undefined],
    ['a number', 42],
    ['a string', 'tasks/added'],
    ['no type', { payload: {} }],
    ['a numeric type', { type: 5, payload: {} }],
  ])('%s: InvalidEventError, the same object on errors$, nothing changed', (_label, bad) => {
    const { session, errors } = watched();
    const error = thrownBy(() => session.dispatch(bad as never));
    expect(error).toBeInstanceOf(InvalidEventError);
    expect(errors).toEqual([error]);
    expect(session.lastSeq).toBe(0);
    expect(session.dispatch(TaskAdded({ title: 'a' })).seq).toBe(1);
  });

  it('unreadable meta is reported too', () => {
    const { session, errors } = watched();
    const meta = new Proxy({}, { ownKeys: () => { throw new Error('trap'); } });
    const error = thrownBy(() => session.dispatch(TaskAdded({ title: 'a' }), meta));
    expect(error).toBeInstanceOf(InvalidEventError);
    expect(errors).toEqual([error]);
  });
});

describe('KnownEvents', () => {
  it('grows only, matches descriptors by token prefix, ignores "*"', () => {
    const known = new KnownEvents();
    known.add('a/b');
    known.addDescriptor('error');
    known.addDescriptor('*');
    expect(known.has('a/b')).toBe(true);
    expect(known.has('error')).toBe(true);
    expect(known.has('error.execution')).toBe(true);
    expect(known.has('errors')).toBe(false);
    expect(known.has('x/y')).toBe(false);
  });

  it('closestType: within a third of the length (at least 2 edits), case-insensitive, first declared on ties', () => {
    const known = new KnownEvents();
    for (const t of ['plan/stepAdded', 'plan/stepRemoved', 'tasks/added']) known.add(t);
    expect(closestType(known.types, 'plan/stepadded')).toBe('plan/stepAdded');
    expect(closestType(known.types, 'plan/stepAded')).toBe('plan/stepAdded');
    expect(closestType(known.types, 'plan/stepRemove')).toBe('plan/stepRemoved');
    expect(closestType(known.types, 'tasks/nope')).toBeUndefined();
    expect(closestType(known.types, '')).toBeUndefined();
    expect(closestType(new KnownEvents().types, 'a')).toBeUndefined();
  });
});
