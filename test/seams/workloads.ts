// The workloads of the seams matrix: one per capability that writes state. Each is a small
// deterministic program (5-15 events) that runs unchanged on a memory session (the model), on a
// JSONL session in this process or in a child that SIGKILLs itself, and (where the capability is
// offered) on a PostgreSQL shared session. Nothing here imports node: the child bundles it.
import { asyncScheduler, lastValueFrom, type SchedulerLike } from 'rxjs';
import { z } from 'zod';
import {
  append,
  clear,
  defineChannel,
  defineComputed,
  defineEffect,
  defineEvent,
  defineSaga,
  defineSlice,
  defineState,
  add,
  dictMerge,
  field,
  EvictionPolicy,
  onLatest,
  replace,
  RetryPolicy,
  SliceWindow,
  withEffects,
  handleEffect,
  type AnySagaDef,
  type Event,
  type Session,
  type CoreSession,
  type SessionOptions,
  type SliceDef,
} from '../../src/index';
import { defineMachine, installMachine, sessionMachine } from '../../src/machines/index.js';
import { createSnapshotStore, type SnapshotStoreBackend } from '../../src/snapshot-store/index';
import { EventSkipped, LineRead, WatchCursor } from '../../src/watch/watch-cursor';

/** Every session of the matrix runs on this clock: envelope times (and so saga records) are the same in every process. */
export const FIXED_NOW = 1_700_000_000_000;
export const fixedClock = (): SchedulerLike => ({ now: () => FIXED_NOW, schedule: (work: any, delay?: number, state?: any) => asyncScheduler.schedule(work, delay, state) });

/** What a workload step may use. `session` is undefined on a shared (PostgreSQL) session. */
export interface Driver {
  dispatch(event: Event): Promise<void>;
  /**
   * Resolves once the session is quiet: no saga running or compensating, and `lastSeq` unchanged
   * over a few polls (effects and sagas started by events run after the dispatch returned).
   */
  quiet(): Promise<void>;
  readonly session: Session | undefined;
  /** Where the capability keeps files beside the store (the snapshot store's directory), if anywhere. */
  readonly sideDir: string | undefined;
  /** A snapshot-store backend for this backend (memory, or a directory beside the JSONL store). */
  snapshotBackend(slices: readonly SliceDef<string, any>[]): SnapshotStoreBackend | undefined;
}

export interface Workload {
  /** The capability, as named in the matrix. */
  readonly name: string;
  /** Options of every session of the workload (scheduler and storage added by the backend). */
  readonly options: () => Omit<SessionOptions, 'storage' | 'scheduler'>;
  /** What is not stored and must be set up again by every process (machines, handlers, run-time middleware). */
  readonly setup?: (session: CoreSession) => void;
  /** Effect handlers: set up in the one process that runs effects (every local session; a shared session's lease holder). */
  readonly onLease?: (session: CoreSession) => void;
  /** The steps before the lifecycle (dispose, kill, tear). Each resolves once what it reported is done. */
  readonly steps: readonly ((d: Driver) => Promise<void> | void)[];
  /** Steps run after a reopen, on the reopened session and on the model alike (the store must continue where it stopped). */
  readonly after: readonly ((d: Driver) => Promise<void> | void)[];
  /** Values beside the stored slices that must equal the model's (computed slices, machine answers). */
  readonly extras?: (session: CoreSession) => Record<string, unknown>;
  /** Events of `steps` a statechart refuses: they take no seq locally, but a seq in a shared log (they are appended before any process reduces them). */
  readonly refused?: number;
  /** Event types the model run must commit (the capability really ran: a retry, a compensation). */
  readonly exercises?: readonly string[];
  /** Whether the workload needs a local session (`runSaga`, `restore`, run-time middleware): then not on PostgreSQL. */
  readonly local?: string;
}

const run = (d: Driver, event: Event) => d.dispatch(event);
const local = (d: Driver): Session => {
  if (d.session === undefined) throw new Error('this step needs a local session');
  return d.session;
};

// -- slices of each policy --------------------------------------------------------------------

const Bumped = defineEvent('matrix/bumped', z.object({ by: z.number().int() }));
const Noted = defineEvent('matrix/noted', z.object({ text: z.string() }));
const NotesPurged = defineEvent('matrix/notesPurged');
const Pinged = defineEvent('matrix/pinged'); // changes no slice: it only takes a seq

const Counter = defineSlice('counter', {
  policy: 'state',
  schema: z.object({ n: z.number() }),
  initial: [{ n: 0 }],
  reducers: ({ onLatest: latest }) => [latest(Bumped, (c, e) => ({ n: (c?.n ?? 0) + e.payload.by }))],
});
const Notes = defineSlice('notes', {
  policy: 'log',
  schema: z.object({ text: z.string() }),
  reducers: ({ on }) => [on(Noted, (_v, e) => append(e.payload)), on(NotesPurged, () => clear<{ text: string }>((n) => n.text.startsWith('tmp')))],
});

const stateSlice: Workload = {
  name: "slice, policy 'state'",
  options: () => ({ slices: [Counter] }),
  steps: [1, 2, 3, 4, 5].map((by) => (d: Driver) => run(d, Bumped({ by }))),
  after: [(d) => run(d, Bumped({ by: 10 }))],
};

const logSlice: Workload = {
  name: "slice, policy 'log'",
  options: () => ({ slices: [Notes] }),
  steps: [
    (d) => run(d, Noted({ text: 'one' })),
    (d) => run(d, Noted({ text: 'tmp two' })),
    (d) => run(d, Noted({ text: 'three' })),
    (d) => run(d, NotesPurged()),
    (d) => run(d, Noted({ text: 'tmp four' })),
    (d) => run(d, Noted({ text: 'five' })),
  ],
  after: [(d) => run(d, Noted({ text: 'after' }))],
};

/** Events that change nothing stored at the end of a run: the reopened session must not hand their seqs out again. */
const trailingUnstored: Workload = {
  name: 'slices, last events change nothing stored',
  options: () => ({ slices: [Counter], events: [Pinged] }),
  steps: [(d) => run(d, Bumped({ by: 1 })), (d) => run(d, Bumped({ by: 2 })), (d) => run(d, Pinged()), (d) => run(d, Pinged())],
  after: [(d) => run(d, Bumped({ by: 3 }))],
};

// -- a session with no ordinary slice -----------------------------------------------------------

const Door = defineMachine('door', {
  context: { opens: 0 },
  states: {
    closed: { on: { 'door/opened': { target: 'open', actions: [{ kind: 'assign', update: ({ context }: { context: { opens: number } }) => ({ opens: context.opens + 1 }) }] } } },
    open: { on: { 'door/closed': 'closed', 'door/locked': 'locked' } },
    locked: { on: { 'door/unlocked': 'closed' } },
  },
} as any);
const DoorEvent = (type: 'door/opened' | 'door/closed' | 'door/locked' | 'door/unlocked'): Event => ({ type, payload: undefined });

const machineOnly: Workload = {
  name: 'no ordinary slice: statechart only',
  options: () => ({ slices: [] }),
  setup: (s) => void installMachine(s, Door),
  steps: [(d) => run(d, DoorEvent('door/opened')), (d) => run(d, DoorEvent('door/closed')), (d) => run(d, DoorEvent('door/opened'))],
  after: [(d) => run(d, DoorEvent('door/closed'))],
  extras: (s) => ({ current: sessionMachine(s, Door).current }),
};

const Echo = defineSaga('echo', { input: z.object({ id: z.string() }) })
  .step('first', { run: (input) => `first ${input.id}` })
  .step('second', { run: (input, ctx) => `${ctx.result('first')} then second` });

const sagaOnly: Workload = {
  name: 'no ordinary slice: sagas only',
  exercises: ['rxslice.saga.completed'],
  options: () => ({ slices: [], sagas: [Echo] }),
  local: 'runSaga is not offered on a shared session (sagas start by startOn in the lease holder)',
  steps: [(d) => lastValueFrom(local(d).runSaga(Echo, { id: 'a' }, { sagaId: 's1' })).then(() => undefined), (d) => lastValueFrom(local(d).runSaga(Echo, { id: 'b' }, { sagaId: 's2' })).then(() => undefined)],
  after: [(d) => lastValueFrom(local(d).runSaga(Echo, { id: 'c' }, { sagaId: 's3' })).then(() => undefined)],
};

// -- computed slices -------------------------------------------------------------------------------

const Total = defineComputed('total', [Counter], (c) => c.at(-1)?.n ?? 0);
const NoteCount = defineComputed('noteCount', [Notes], (n) => n.length);
const Summary = defineComputed('summary', [Total, NoteCount], (t, n) => `${t}/${n}`); // a diamond over two sources

const computedSlices: Workload = {
  name: 'computed slices',
  options: () => ({ slices: [Counter, Notes] }),
  steps: [(d) => run(d, Bumped({ by: 2 })), (d) => run(d, Noted({ text: 'a' })), (d) => run(d, Bumped({ by: 3 })), (d) => run(d, Noted({ text: 'b' })), (d) => run(d, Noted({ text: 'tmp' }))],
  after: [(d) => run(d, NotesPurged()), (d) => run(d, Bumped({ by: 1 }))],
  extras: (s) => ({ total: s.computed(Total).latest(), notes: s.computed(NoteCount).latest(), summary: s.computed(Summary).latest() }),
};

// -- windows and eviction ------------------------------------------------------------------------

const Sampled = defineEvent('matrix/sampled', z.object({ n: z.number().int() }));
const Recent = defineSlice('recent', { policy: 'log', schema: z.number(), window: SliceWindow.count(3), reducers: ({ on }) => [on(Sampled, (_v, e) => append(e.payload.n))] });
const Newest = defineSlice('firstKept', { policy: 'log', schema: z.number(), window: SliceWindow.count(2, { eviction: EvictionPolicy.lifo() }), reducers: ({ on }) => [on(Sampled, (_v, e) => append(e.payload.n))] });
const Evens = defineSlice('evensProtected', {
  policy: 'log',
  schema: z.number(),
  window: SliceWindow.composite(SliceWindow.predicate((n: number) => n % 2 === 0, 2), SliceWindow.count(2)),
  reducers: ({ on }) => [on(Sampled, (_v, e) => append(e.payload.n))],
});
const Largest = defineSlice('largest', {
  policy: 'log',
  schema: z.number(),
  window: SliceWindow.count(3, { eviction: EvictionPolicy.priority((n: number) => n % 5) }),
  reducers: ({ on }) => [on(Sampled, (_v, e) => append(e.payload.n))],
});
const Reservoir = defineSlice('reservoir', {
  policy: 'log',
  schema: z.number(),
  window: SliceWindow.count(3, { eviction: EvictionPolicy.sampling({ seed: 42 }) }),
  reducers: ({ on }) => [on(Sampled, (_v, e) => append(e.payload.n))],
});

const windows: Workload = {
  name: 'windows and eviction (count, LIFO, predicate+count, priority, sampling)',
  options: () => ({ slices: [Recent, Newest, Evens, Largest, Reservoir] }),
  steps: [1, 2, 3, 4, 5, 6, 7, 8].map((n) => (d: Driver) => run(d, Sampled({ n }))),
  after: [9, 10, 11, 12].map((n) => (d: Driver) => run(d, Sampled({ n }))),
};

// -- sagas ----------------------------------------------------------------------------------------

const Audit = defineSlice('audit', { policy: 'log', schema: z.string(), reducers: ({ on }) => [on(Noted, (_v, e) => append(e.payload.text))] });
const Deploy = defineSaga('deploy', { input: z.object({ app: z.string(), fail: z.boolean() }) })
  .step('create', { run: (input) => ({ vm: `vm-${input.app}` }), compensate: () => 'deleted' })
  .step('configure', { run: (_input, ctx) => ({ net: `net-${ctx.result('create').vm}` }), compensate: () => 'unconfigured' })
  .step('ship', {
    run: (input) => {
      if (input.fail) throw new Error('image does not start');
      return { url: `https://${input.app}` };
    },
  });
const Retried = defineSaga('retried', { input: z.object({ id: z.string() }) }).step('flaky', {
  retry: RetryPolicy.fixed(0, 2),
  run: (input, ctx) => {
    if (ctx.attempt < 2) throw new Error(`attempt ${ctx.attempt} failed`);
    return `done ${input.id} on attempt ${ctx.attempt}`;
  },
});
const settle = (p: Promise<unknown>): Promise<void> => p.then(() => undefined, () => undefined);

const sagaSuccess: Workload = {
  name: 'sagas: success',
  exercises: ['rxslice.saga.completed'],
  options: () => ({ slices: [Audit], sagas: [Deploy] }),
  local: 'runSaga is not offered on a shared session (sagas start by startOn in the lease holder)',
  steps: [(d) => run(d, Noted({ text: 'before' })), (d) => settle(lastValueFrom(local(d).runSaga(Deploy, { app: 'web', fail: false }, { sagaId: 'd1' }))), (d) => run(d, Noted({ text: 'between' }))],
  after: [(d) => settle(lastValueFrom(local(d).runSaga(Deploy, { app: 'api', fail: false }, { sagaId: 'd2' })))],
};
const sagaCompensation: Workload = {
  name: 'sagas: failure with compensation',
  exercises: ['rxslice.saga.stepCompensated', 'rxslice.saga.failed'],
  options: () => ({ slices: [Audit], sagas: [Deploy] }),
  local: sagaSuccess.local as string,
  steps: [(d) => run(d, Noted({ text: 'before' })), (d) => settle(lastValueFrom(local(d).runSaga(Deploy, { app: 'db', fail: true }, { sagaId: 'f1' }))), (d) => run(d, Noted({ text: 'after the rollback' }))],
  after: [(d) => settle(lastValueFrom(local(d).runSaga(Deploy, { app: 'db', fail: true }, { sagaId: 'f2' })))],
};
const sagaRetry: Workload = {
  name: 'sagas: retry',
  exercises: ['rxslice.saga.stepRetrying', 'rxslice.saga.completed'],
  options: () => ({ slices: [Audit], sagas: [Retried] }),
  local: sagaSuccess.local as string,
  steps: [(d) => run(d, Noted({ text: 'before' })), (d) => settle(lastValueFrom(local(d).runSaga(Retried, { id: 'r1' }, { sagaId: 'r1' }))), (d) => run(d, Noted({ text: 'after' }))],
  after: [(d) => settle(lastValueFrom(local(d).runSaga(Retried, { id: 'r2' }, { sagaId: 'r2' })))],
};

// -- statecharts ------------------------------------------------------------------------------------

const statechart: Workload = {
  name: 'statecharts (install + transitions, a refused one)',
  exercises: ['door/locked'],
  options: () => ({ slices: [Notes] }),
  setup: (s) => void installMachine(s, Door),
  steps: [
    (d) => run(d, Noted({ text: 'start' })),
    (d) => run(d, DoorEvent('door/opened')),
    (d) => run(d, DoorEvent('door/opened')).catch(() => undefined), // refused: InvalidTransitionError, no seq
    (d) => run(d, DoorEvent('door/locked')),
    (d) => run(d, Noted({ text: 'locked' })),
  ],
  after: [(d) => run(d, DoorEvent('door/unlocked')), (d) => run(d, DoorEvent('door/opened'))],
  extras: (s) => ({ current: sessionMachine(s, Door).current, canClose: sessionMachine(s, Door).canTransition(DoorEvent('door/closed') as any) }),
  refused: 1,
};

// -- effects with onSuccess / compensate ------------------------------------------------------------

const Ordered = defineEvent('order/placed', z.object({ id: z.string(), ok: z.boolean() }));
const Paid = defineEvent('order/paid', z.object({ id: z.string(), charge: z.string() }));
const Cancelled = defineEvent('order/cancelled', z.object({ id: z.string() }));
const Charge = defineEffect('payment/charge', z.object({ id: z.string(), ok: z.boolean() }), {
  onSuccess: (effect, charge: string) => Paid({ id: effect.payload.id, charge }),
  compensate: (effect) => Cancelled({ id: effect.payload.id }),
});
const Orders = defineSlice('orders', {
  policy: 'log',
  schema: z.object({ id: z.string(), status: z.string() }),
  reducers: ({ on }) => [
    on(Ordered, (_v, e) => withEffects(append({ id: e.payload.id, status: 'placed' }), [Charge(e.payload)])),
    on(Paid, (_v, e) => append({ id: e.payload.id, status: `paid ${e.payload.charge}` })),
    on(Cancelled, (_v, e) => append({ id: e.payload.id, status: 'cancelled' })),
  ],
});
/** Dispatches an order and waits until its outcome (paid or cancelled) is committed, wherever the effect runs. */
const order = async (d: Driver, id: string, ok: boolean): Promise<void> => {
  await d.dispatch(Ordered({ id, ok }));
  await d.quiet();
};
const effects: Workload = {
  name: 'effects with onSuccess / compensate',
  exercises: ['order/paid', 'order/cancelled', 'rxslice.effect.compensated'],
  options: () => ({ slices: [Orders], events: [Paid, Cancelled] }),
  // Effects run in one process: the model's and JSONL's, or a shared session's lease holder.
  onLease: (s) =>
    void handleEffect(s, Charge, async (effect) => {
      if (!effect.payload.ok) throw new Error('declined');
      return `ch-${effect.payload.id}`;
    }),
  steps: [(d) => order(d, 'o1', true), (d) => order(d, 'o2', false), (d) => order(d, 'o3', true)],
  after: [(d) => order(d, 'o4', true)],
};

/** Sagas started by an event (`startOn`): the way they run on a shared session (in its lease holder). */
const DeployRequested = defineEvent('deploy/requested', z.object({ app: z.string(), fail: z.boolean() }));
const StartedDeploy = defineSaga('startedDeploy', { input: z.object({ app: z.string(), fail: z.boolean() }), startOn: DeployRequested })
  .step('create', { run: (input) => ({ vm: `vm-${input.app}` }), compensate: () => 'deleted' })
  .step('ship', {
    run: (input, ctx) => {
      if (input.fail) throw new Error('image does not start');
      return { url: `https://${ctx.result('create').vm}` };
    },
  });
const sagaStartOn: Workload = {
  name: 'sagas: started by an event (startOn), success and compensation',
  exercises: ['rxslice.saga.completed', 'rxslice.saga.stepCompensated'],
  options: () => ({ slices: [Audit], sagas: [StartedDeploy] }),
  steps: [
    (d) => run(d, Noted({ text: 'before' })),
    async (d) => {
      await d.dispatch(DeployRequested({ app: 'web', fail: false }));
      await d.quiet();
    },
    async (d) => {
      await d.dispatch(DeployRequested({ app: 'db', fail: true }));
      await d.quiet();
    },
  ],
  after: [
    async (d) => {
      await d.dispatch(DeployRequested({ app: 'api', fail: false }));
      await d.quiet();
    },
  ],
};

// -- channels with replay ---------------------------------------------------------------------------

export const PlanChannel = defineChannel('plan', [Noted, NotesPurged], { replayBuffer: 100 });
const channels: Workload = {
  name: 'channels with replay({ fromSeq })',
  options: () => ({ slices: [Notes, Counter], channels: [PlanChannel] }),
  steps: [(d) => run(d, Noted({ text: 'one' })), (d) => run(d, Bumped({ by: 1 })), (d) => run(d, Noted({ text: 'tmp' })), (d) => run(d, NotesPurged()), (d) => run(d, Bumped({ by: 1 }))],
  after: [(d) => run(d, Noted({ text: 'after' }))],
};

/** The shape: the last events of a run change nothing stored (a purge with nothing to purge, a ping). */
export const channelsUnstoredTail: Workload = {
  name: 'channels with replay({ fromSeq }), last events change nothing stored',
  options: () => ({ slices: [Notes], channels: [PlanChannel], events: [Pinged] }),
  steps: [(d) => run(d, Noted({ text: 'one' })), (d) => run(d, Noted({ text: 'two' })), (d) => run(d, NotesPurged()), (d) => run(d, Pinged())],
  after: [(d) => run(d, Noted({ text: 'after' }))],
};

// -- snapshots, restore and the snapshot store -----------------------------------------------------

const snapshots: Workload = {
  name: 'snapshots + restore + snapshot store',
  exercises: ['rxslice.session.restored'],
  options: () => ({ slices: [Counter, Notes] }),
  local: 'restore is refused on a shared session (UnsupportedOnSharedSessionError): its state changes only by logged events',
  steps: [
    (d) => run(d, Bumped({ by: 1 })),
    (d) => run(d, Noted({ text: 'kept' })),
    async (d) => {
      const s = local(d);
      const store = createSnapshotStore({ storage: d.snapshotBackend([Counter, Notes]) as SnapshotStoreBackend });
      await store.save(s.snapshot({ includeLogs: true, tag: 'matrix:good' }));
    },
    (d) => run(d, Bumped({ by: 100 })),
    (d) => run(d, Noted({ text: 'undone' })),
    async (d) => {
      const s = local(d);
      const store = createSnapshotStore({ storage: d.snapshotBackend([Counter, Notes]) as SnapshotStoreBackend });
      const [info] = await store.find({ tag: 'matrix:*' });
      s.restore(await store.load((info as { id: string }).id));
    },
    (d) => run(d, Bumped({ by: 2 })),
  ],
  after: [
    async (d) => {
      const s = local(d);
      const store = createSnapshotStore({ storage: d.snapshotBackend([Counter, Notes]) as SnapshotStoreBackend });
      const found = await store.find({ tag: 'matrix:*' });
      if (found.length !== 1) throw new Error(`the snapshot store holds ${found.length} tagged snapshots, expected 1`);
      s.restore(await store.load((found[0] as { id: string }).id));
    },
    (d) => run(d, Noted({ text: 'after restore' })),
  ],
};

// -- partial-update state ---------------------------------------------------------------------------

export const Run = defineState('run', {
  status: field(z.enum(['running', 'done']), { default: 'running' }),
  steps: field(z.array(z.string()), { reducer: add, default: [] }),
  owners: field(z.record(z.string(), z.string()), { reducer: dictMerge, default: {} }),
});
const partialState: Workload = {
  name: 'partial-update state (defineState)',
  options: () => ({ slices: [Run] }),
  steps: [
    (d) => run(d, Run.update({ steps: ['plan'] })),
    (d) => run(d, Run.updateMany([{ steps: ['code'], owners: { dev: 'a' } }, { steps: ['test'], owners: { qa: 'b' } }])),
    (d) => run(d, Run.update({ owners: { dev: 'c' } })),
  ],
  after: [(d) => run(d, Run.update({ status: 'done', steps: ['ship'] }))],
};

// -- run-time middleware ------------------------------------------------------------------------------

const middleware: Workload = {
  name: 'run-time middleware (session.use, slice(def).use)',
  options: () => ({ slices: [Counter, Notes] }),
  local: 'run-time middleware is per process; a shared session takes reducer middleware at creation (`middleware`)',
  setup: (s) => {
    // doubles every counter bump; upper-cases every note
    s.slice(Counter).use((ctx, next) => (Bumped.match(ctx.event) ? replace([{ n: ((ctx.previous.latest() as { n: number } | undefined)?.n ?? 0) + 2 * ctx.event.payload.by }]) : next()));
    s.use((ctx, next) => (ctx.slice === 'notes' && Noted.match(ctx.event) ? append({ text: ctx.event.payload.text.toUpperCase() }) : next()));
  },
  steps: [(d) => run(d, Noted({ text: 'quiet' })), (d) => run(d, Bumped({ by: 1 })), (d) => run(d, Noted({ text: 'loud' }))],
  after: [(d) => run(d, Noted({ text: 'again' }))],
};

// -- the watch cursor -------------------------------------------------------------------------------

const watchCursor: Workload = {
  name: 'watch cursor',
  options: () => ({ slices: [WatchCursor], events: [LineRead, EventSkipped] }),
  steps: [
    (d) => run(d, LineRead({ offset: 10, ino: 7, clockMs: 1 })),
    (d) => run(d, EventSkipped({ type: 'x', reason: 'INVALID_EVENT' })),
    (d) => run(d, LineRead({ offset: 25, ino: 7, clockMs: 2 })),
    (d) => run(d, LineRead({ offset: 40, ino: 7, clockMs: null })),
  ],
  after: [(d) => run(d, LineRead({ offset: 52, ino: 7, clockMs: 3 }))],
};

export const WORKLOADS: readonly Workload[] = [
  stateSlice,
  logSlice,
  trailingUnstored,
  machineOnly,
  sagaOnly,
  computedSlices,
  windows,
  sagaSuccess,
  sagaCompensation,
  sagaRetry,
  sagaStartOn,
  statechart,
  effects,
  channels,
  snapshots,
  partialState,
  middleware,
  watchCursor,
];

export const workload = (name: string): Workload => {
  const w = WORKLOADS.find((x) => x.name === name);
  if (w === undefined) throw new Error(`no workload "${name}"`);
  return w;
};

export { Door, Echo, Deploy, Counter, Notes, Bumped, Noted, onLatest, replace };
export type { AnySagaDef };
