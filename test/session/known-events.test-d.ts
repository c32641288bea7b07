import { describe, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import {
  append,
  createSession,
  defineChannel,
  defineEvent,
  defineSlice,
  defineState,
  field,
  type CoreSession,
  type Envelope,
  type Event,
  type InferSliceEvent,
  type Session,
  type SessionEvent,
  type AnySliceCommand,
} from '../../src/index';

const Task = z.object({ title: z.string() });
const TaskAdded = defineEvent('tasks/added', Task);
const TaskRemoved = defineEvent('tasks/removed', z.object({ title: z.string() }));
const TasksCleared = defineEvent('tasks/cleared');
const ToolCalled = defineEvent('tool/called', z.object({ tool: z.string() }));
const Tasks = defineSlice('tasks', {
  policy: 'log',
  schema: Task,
  reducers: ({ on, onLatest }) => [on(TaskAdded, (_view, e) => append(e.payload)), onLatest(TasksCleared, (latest) => latest ?? { title: '' })],
});
const Scratch = defineSlice('scratch', { policy: 'state', schema: z.string() });

type TaskAddedEvent = Event<'tasks/added', { title: string }>;
type TasksClearedEvent = Event<'tasks/cleared', void>;
type TaskRemovedEvent = Event<'tasks/removed', { title: string }>;

describe('a slice carries the events of its declared reducers', () => {
  it('infers the union from on / onLatest / produceLatest', () => {
    expectTypeOf<InferSliceEvent<typeof Tasks>>().toEqualTypeOf<TaskAddedEvent | TasksClearedEvent>();
  });

  it('a slice without reducers handles no event; an explicit item type with reducers falls back to any event', () => {
    expectTypeOf<InferSliceEvent<typeof Scratch>>().toEqualTypeOf<never>();
    const Untyped = defineSlice<string>('untyped', { policy: 'log', reducers: ({ on }) => [on(TaskAdded, (_v, e) => append(e.payload.title))] });
    expectTypeOf<InferSliceEvent<typeof Untyped>>().toEqualTypeOf<Event>();
  });
});

describe('dispatch accepts only the declared events', () => {
  it("rejects the newcomer's misspelled raw event at compile time", () => {
    const session = createSession({ slices: [Tasks] });
    session.dispatch(TaskAdded({ title: 'a' }));
    session.dispatch({ type: 'tasks/added', payload: { title: 'a' } });
    // @ts-expect-error 'tasks/nope' is declared by no slice, event or channel of the session
    session.dispatch({ type: 'tasks/nope', payload: {} });
    // @ts-expect-error a declared type with the wrong payload
    session.dispatch({ type: 'tasks/added', payload: { title: 1 } });
    // @ts-expect-error TaskRemoved is not declared in this session
    session.dispatch(TaskRemoved({ title: 'a' }));
  });

  it('returns the envelope of the dispatched event', () => {
    const session = createSession({ slices: [Tasks] });
    expectTypeOf(session.dispatch(TaskAdded({ title: 'a' }))).toEqualTypeOf<Envelope<TaskAddedEvent>>();
  });

  it('the union of slices, events and channels', () => {
    const session = createSession({ slices: [Tasks, Scratch], events: [TaskRemoved], channels: [defineChannel('tools', [ToolCalled])] });
    expectTypeOf(session.dispatch).parameter(0).toEqualTypeOf<TaskAddedEvent | TasksClearedEvent | TaskRemovedEvent | Event<'tool/called', { tool: string }> | AnySliceCommand>();
    session.dispatch(TaskRemoved({ title: 'a' }));
    session.dispatch(ToolCalled({ tool: 'search' }));
  });

  it("any event where nothing is declared, with unknownEvents: 'accept', or with an untyped slice", () => {
    expectTypeOf(createSession({ slices: [] }).dispatch).parameter(0).toEqualTypeOf<Event | AnySliceCommand>();
    expectTypeOf(createSession({ slices: [Tasks], unknownEvents: 'accept' }).dispatch).parameter(0).toEqualTypeOf<Event | AnySliceCommand>();
    const Untyped = defineSlice<string>('untyped', { policy: 'log', reducers: ({ on }) => [on(TaskAdded, (_v, e) => append(e.payload.title))] });
    expectTypeOf(createSession({ slices: [Tasks, Untyped] }).dispatch).parameter(0).toEqualTypeOf<Event | AnySliceCommand>();
    createSession({ slices: [], unknownEvents: 'accept' }).dispatch({ type: 'anything/goes', payload: 1 });
  });

  it("a defineState slice declares its update event", () => {
    const Notes = defineState('notes', { text: field(z.string(), { default: '' }) });
    const session = createSession({ slices: [Tasks, Notes] });
    session.dispatch(Notes.update({ text: 'x' }));
    // @ts-expect-error 'notes/updatd' is a typo of the state's update event
    session.dispatch({ type: 'notes/updatd', payload: { updates: [] } });
  });

  it('a typed session is still a Session (any event): the type-level opt-out for events declared at run time', () => {
    const typed = createSession({ slices: [Tasks] });
    const open: Session = typed;
    open.dispatch(TaskRemoved({ title: 'registered later' }));
    expectTypeOf<SessionEvent<{ slices: [typeof Tasks] }>>().toEqualTypeOf<TaskAddedEvent | TasksClearedEvent>();
    const core: CoreSession<TaskAddedEvent> = typed as CoreSession<TaskAddedEvent>;
    // @ts-expect-error the core session type carries the same union
    core.dispatch(TaskRemoved({ title: 'a' }));
  });
});
