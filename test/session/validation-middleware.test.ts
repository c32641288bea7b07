// Issue 33, item 9: the refactor document's ValidationMiddleware, with zod schemas keyed by event
// creator. The document's validators:
//   title_validator   = compose(non_empty("title"), max_length(500, "title"))
//   command_validator = compose(non_empty("command"), each(ascii_only("command entry")))
//   session.use(ValidationMiddleware({
//     SetupPlan: compose(field("objective", title_validator), field("initial_steps", each(title_validator))),
//     AddStep: field("steps", compose(non_empty(), each(title_validator))),
//     UpdateStep: field("title", optional(title_validator)) }))
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  append,
  createSession,
  defineEvent,
  defineSlice,
  InvalidEventError,
  InvalidMiddlewareError,
  extend,
  replace,
  validationMiddleware,
  type Envelope,
  type EventMiddleware,
  type RxSliceError,
} from '../../src/index';

const SetupPlan = defineEvent('plan/setUp', z.object({ objective: z.string(), initialSteps: z.array(z.string()) }));
const AddStep = defineEvent('plan/stepsAdded', z.object({ steps: z.array(z.string()) }));
const UpdateStep = defineEvent('plan/stepUpdated', z.object({ index: z.number().int(), title: z.string().optional() }));
const RunCommand = defineEvent('tool/commandRun', z.object({ command: z.array(z.string()) }));

const Steps = defineSlice('steps', {
  policy: 'state',
  schema: z.string(),
  reducers: ({ on }) => [
    on(SetupPlan, (_v, e) => replace(e.payload.initialSteps)),
    on(AddStep, (_v, e) => extend(e.payload.steps)),
  ],
});
const Objective = defineSlice('objective', { policy: 'state', schema: z.string(), reducers: ({ onLatest }) => [onLatest(SetupPlan, (_l, e) => e.payload.objective)] });
const Commands = defineSlice('commands', { policy: 'log', schema: z.array(z.string()), reducers: ({ on }) => [on(RunCommand, (_v, e) => append(e.payload.command))] });

// The document's validators in zod.
const title = z.string().trim().min(1, 'title must not be empty').max(500, 'title must be at most 500 characters');
const command = z.array(z.string().regex(/^[\x20-\x7e]*$/, 'command entry must be ASCII')).min(1, 'command must not be empty');
const rules = validationMiddleware([
  [SetupPlan, z.object({ objective: title, initialSteps: z.array(title) })],
  [AddStep, z.object({ steps: z.array(title).min(1, 'steps must not be empty') })],
  [UpdateStep, z.object({ title: title.optional() })],
  [RunCommand, z.object({ command })],
]);

function setup(before: EventMiddleware[] = [], after: EventMiddleware[] = []) {
  const session = createSession({ slices: [Steps, Objective, Commands], events: [UpdateStep] });
  const errors: RxSliceError[] = [];
  session.errors$.subscribe((e) => errors.push(e));
  if (before.length > 0) session.use({ events: before });
  session.use(rules);
  if (after.length > 0) session.use({ events: after });
  return { session, errors };
}

/** What dispatching `event` threw (it must throw). */
function refusal(session: ReturnType<typeof setup>['session'], event: Parameters<ReturnType<typeof setup>['session']['dispatch']>[0]): InvalidEventError {
  try {
    session.dispatch(event);
  } catch (error) {
    return error as InvalidEventError;
  }
  throw new Error(`dispatching ${event.type} did not throw`);
}

describe('validationMiddleware: the refactor document\'s calls', () => {
  it('lets valid events through to the reducers', () => {
    const { session, errors } = setup();
    session.dispatch(SetupPlan({ objective: 'Ship the release', initialSteps: ['write notes', 'tag'] }));
    session.dispatch(AddStep({ steps: ['publish'] }));
    session.dispatch(UpdateStep({ index: 0 })); // title absent: optional
    session.dispatch(UpdateStep({ index: 0, title: 'write the notes' }));
    session.dispatch(RunCommand({ command: ['git', 'tag', 'v1.0'] }));
    expect(session.read(Steps)).toEqual(['write notes', 'tag', 'publish']);
    expect(session.read(Objective)).toEqual(['Ship the release']);
    expect(session.lastSeq).toBe(5);
    expect(errors).toEqual([]);
  });

  it.each([
    ['SetupPlan, empty objective', SetupPlan({ objective: '  ', initialSteps: [] }), 'plan/setUp', ['objective'], 'title must not be empty'],
    ['SetupPlan, objective too long', SetupPlan({ objective: 'x'.repeat(501), initialSteps: [] }), 'plan/setUp', ['objective'], 'title must be at most 500 characters'],
    ['SetupPlan, an empty initial step', SetupPlan({ objective: 'o', initialSteps: ['a', ''] }), 'plan/setUp', ['initialSteps', 1], 'title must not be empty'],
    ['AddStep, no steps', AddStep({ steps: [] }), 'plan/stepsAdded', ['steps'], 'steps must not be empty'],
    ['AddStep, a step too long', AddStep({ steps: ['ok', 'y'.repeat(600)] }), 'plan/stepsAdded', ['steps', 1], 'title must be at most 500 characters'],
    ['UpdateStep, an empty title', UpdateStep({ index: 0, title: '' }), 'plan/stepUpdated', ['title'], 'title must not be empty'],
    ['command_validator, no command', RunCommand({ command: [] }), 'tool/commandRun', ['command'], 'command must not be empty'],
    ['command_validator, a non-ASCII entry', RunCommand({ command: ['echo', 'café'] }), 'tool/commandRun', ['command', 1], 'command entry must be ASCII'],
  ] as const)('refuses %s: an InvalidEventError naming the event type, the field path and the message', (_name, event, type, path, message) => {
    const { session, errors } = setup();
    const error = refusal(session, event);
    expect(error).toBeInstanceOf(InvalidEventError);
    expect(error).toMatchObject({ code: 'INVALID_EVENT', name: 'InvalidEventError', eventType: type, refusedBy: 'validation middleware' });
    expect(error.issues).toEqual([expect.objectContaining({ path, message })]);
    expect(error.message).toContain(`Event "${type}" was refused by the validation middleware (${path.join('.')}: ${message})`);
    expect(errors).toEqual([error]); // reported on errors$ too, as it is
  });

  it('reports every issue of a payload, as data', () => {
    const { session } = setup();
    const error = refusal(session, SetupPlan({ objective: '', initialSteps: ['', 'z'.repeat(501)] }));
    expect(error.issues.map((i) => [i.path, i.code])).toEqual([
      [['objective'], 'too_small'],
      [['initialSteps', 0], 'too_small'],
      [['initialSteps', 1], 'too_big'],
    ]);
  });
});

describe('after a refusal', () => {
  it('nothing changed, no seq was taken, nothing was committed; the session goes on', () => {
    const { session } = setup();
    session.dispatch(SetupPlan({ objective: 'o', initialSteps: ['a'] }));
    const before = session.getSnapshot();
    const steps = session.read(Steps);
    const committed: number[] = [];
    session.committed$.subscribe((c) => committed.push(c.seq));
    expect(() => session.dispatch(AddStep({ steps: [] }))).toThrow(InvalidEventError);
    expect(() => session.dispatch(RunCommand({ command: ['é'] }))).toThrow(InvalidEventError);
    expect(session.getSnapshot()).toBe(before);
    expect(session.read(Steps)).toBe(steps);
    expect(session.read(Commands)).toEqual([]);
    expect(session.lastSeq).toBe(1);
    expect(committed).toEqual([]);
    session.dispatch(AddStep({ steps: ['b'] }));
    expect(committed).toEqual([2]); // gapless: the refused events took no seq
    expect(session.read(Steps)).toEqual(['a', 'b']);
  });

  it('inside a batch, the refused event throws and the others commit', () => {
    const { session } = setup();
    session.batch(() => {
      session.dispatch(AddStep({ steps: ['a'] }));
      expect(() => session.dispatch(AddStep({ steps: [''] }))).toThrow(InvalidEventError);
      session.dispatch(AddStep({ steps: ['c'] }));
    });
    expect(session.read(Steps)).toEqual(['a', 'c']);
    expect(session.lastSeq).toBe(2);
  });
});

describe('ordering with other middleware', () => {
  it('event middleware registered before it sees every event; after it, only valid ones; reducer middleware and operators only valid ones', () => {
    const seen: string[] = [];
    const tap =
      (name: string): EventMiddleware =>
      (env: Envelope, next) => {
        seen.push(`${name}:${(env.event.payload as { steps?: unknown[] }).steps?.length ?? '-'}`);
        next(env);
      };
    const { session } = setup([tap('before')], [tap('after')]);
    session.use((ctx, next) => {
      seen.push(`reducer:${ctx.slice}`);
      return next();
    });
    session.use({ operators: [(source) => source] });
    expect(() => session.dispatch(AddStep({ steps: [] }))).toThrow(InvalidEventError);
    session.dispatch(AddStep({ steps: ['a'] }));
    expect(seen).toEqual(['before:0', 'before:1', 'after:1', 'reducer:steps']);
  });

  it('a middleware before it that changes the payload is validated as changed; library events bypass it', () => {
    const { session } = setup([(env, next) => next(env.event.type === AddStep.type ? { ...env, event: AddStep({ steps: [] }) } : env)]);
    expect(() => session.dispatch(AddStep({ steps: ['a'] }))).toThrow(/steps: steps must not be empty/);
    session.slice(Steps).seed(['']); // rxslice.slice.seeded: no rule applies to library events
    expect(session.read(Steps)).toEqual(['']);
  });

  it('given to createSession({ middleware }), it runs from the first event', () => {
    const session = createSession({ slices: [Steps], middleware: validationMiddleware([[AddStep, z.object({ steps: z.array(title).min(1) })]]) });
    expect(() => session.dispatch(AddStep({ steps: [] }))).toThrow(InvalidEventError);
    expect(session.lastSeq).toBe(0);
  });

  it('can be unplugged like any middleware', () => {
    const session = createSession({ slices: [Steps] });
    const unplug = session.use(validationMiddleware([[AddStep, z.object({ steps: z.array(title).min(1) })]]));
    expect(() => session.dispatch(AddStep({ steps: [] }))).toThrow(InvalidEventError);
    unplug();
    session.dispatch(AddStep({ steps: [] }));
    expect(session.lastSeq).toBe(1);
  });
});

describe('rules', () => {
  it('passes the payload on as dispatched: a schema checks, its transforms do not apply', () => {
    const session = createSession({ slices: [Steps] });
    session.use(validationMiddleware([[AddStep, z.object({ steps: z.array(z.string().trim().min(1)) })]]));
    session.dispatch(AddStep({ steps: ['  padded  '] }));
    expect(session.read(Steps)).toEqual(['  padded  ']);
  });

  it('refuses what is not [creator, schema] pairs, saying what it takes', () => {
    expect(() => validationMiddleware({ AddStep: title } as never)).toThrow(InvalidMiddlewareError);
    expect(() => validationMiddleware([[AddStep]] as never)).toThrow(/rule 0 is not an \[EventCreator, zodSchema\] pair/);
    expect(() => validationMiddleware([['plan/stepsAdded', title]] as never)).toThrow(InvalidMiddlewareError);
    expect(() => validationMiddleware([[AddStep, (x: unknown) => x]] as never)).toThrow(InvalidMiddlewareError);
  });

  it("types each schema against its creator's payload", () => {
    validationMiddleware([
      [AddStep, z.object({ steps: z.array(title) })],
      // A schema may name only some of the payload's fields.
      [UpdateStep, z.object({ title: title.optional() })],
    ]);
    validationMiddleware([
      // @ts-expect-error steps is a string[], not a number
      [AddStep, z.object({ steps: z.number() })],
    ]);
    validationMiddleware([
      // @ts-expect-error title is optional in the payload: the schema must accept undefined
      [UpdateStep, z.object({ title })],
    ]);
  });
});
