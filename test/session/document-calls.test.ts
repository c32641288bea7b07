import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  appendAll,
  ClearSlice,
  createSession,
  defineComputed,
  defineEvent,
  defineSlice,
  InitializeSlice,
  InvalidSliceItemError,
  replaceLatest,
  ReservedEventTypeError,
  SliceAppended,
  SliceCleared,
  SliceLatestReplaced,
  SliceNotRegisteredError,
  SliceSeeded,
  SliceWindow,
  type CommittedEnvelope,
} from '../../src/index';

// The design documents' calls (issue 33, items 1, 2, 3 and 5), as written there, adapted only as
// far as TypeScript requires (`session.slice(X)` for `session[X]`, camelCase).

const Entry = z.object({ path: z.string(), summary: z.string() });
type Entry = z.infer<typeof Entry>;
const WorkspaceDigest = defineSlice('workspaceDigest', { policy: 'log', schema: Entry });
const Paths = defineComputed('digestPaths', [WorkspaceDigest], (entries) => entries.map((e) => e.path));

const PlanItem = z.object({ steps: z.array(z.string()) });
type PlanItem = z.infer<typeof PlanItem>;
const Plan = defineSlice('plan', { policy: 'state', schema: PlanItem, initial: [{ steps: [] }] });
const PlanSet = defineEvent('plan/set', PlanItem);

const Note = z.object({ id: z.string(), text: z.string() });
type Note = z.infer<typeof Note>;
const Notification = defineSlice('notification', { policy: 'log', schema: Note });
const NotificationsArrived = defineEvent('notification/arrived', z.array(Note));

const Tool = z.object({ id: z.string(), status: z.string() });
const Tools = defineSlice('tools', { policy: 'log', schema: Tool });

const recordTypes = (session: { committed$: { subscribe(fn: (c: CommittedEnvelope) => void): unknown } }): string[] => {
  const types: string[] = [];
  session.committed$.subscribe((c) => types.push(c.event.type));
  return types;
};

describe('session.slice(WorkspaceDigest).append(entry): convenience writes through audited library events', () => {
  it('appends, and the computed index auto-updates', () => {
    const session = createSession({ slices: [WorkspaceDigest] });
    const types = recordTypes(session);
    const paths: (readonly string[])[] = [];
    session.computed(Paths).value$.subscribe((p) => paths.push(p));
    session.slice(WorkspaceDigest).append({ path: 'src/a.ts', summary: 'entry' });
    session.slice(WorkspaceDigest).append({ path: 'src/b.ts', summary: 'util' }, { path: 'src/c.ts', summary: 'cli' });
    expect(session.slice(WorkspaceDigest).all()).toEqual([
      { path: 'src/a.ts', summary: 'entry' },
      { path: 'src/b.ts', summary: 'util' },
      { path: 'src/c.ts', summary: 'cli' },
    ]);
    expect(paths).toEqual([[], ['src/a.ts'], ['src/a.ts', 'src/b.ts', 'src/c.ts']]);
    expect(types).toEqual([SliceAppended.type, SliceAppended.type]);
    expect(session.lastSeq).toBe(2);
  });

  it('validates every item first: a bad one changes nothing and takes no seq', () => {
    const session = createSession({ slices: [WorkspaceDigest] });
    expect(() => session.slice(WorkspaceDigest).append({ path: 'a', summary: 'ok' }, { path: 1 } as never)).toThrow(InvalidSliceItemError);
    expect(session.slice(WorkspaceDigest).size).toBe(0);
    expect(session.lastSeq).toBe(0);
  });

  it('applies the window in the same commit', () => {
    const Recent = defineSlice('recent', { policy: 'log', schema: Entry, window: SliceWindow.count(2) });
    const session = createSession({ slices: [Recent] });
    session.slice(Recent).append({ path: 'a', summary: '' }, { path: 'b', summary: '' }, { path: 'c', summary: '' });
    expect(session.slice(Recent).all().map((e) => e.path)).toEqual(['b', 'c']);
  });

  it('replaceLatest(item) and replaceLatestBy(key, item), as the helper reducers do', () => {
    const session = createSession({ slices: [Plan, Tools] });
    const types = recordTypes(session);
    session.slice(Plan).replaceLatest({ steps: ['read', 'fix'] });
    expect(session.slice(Plan).all()).toEqual([{ steps: ['read', 'fix'] }]);
    session.slice(Tools).replaceLatestBy('id', { id: 't1', status: 'running' });
    session.slice(Tools).replaceLatestBy('id', { id: 't2', status: 'running' });
    session.slice(Tools).replaceLatestBy('id', { id: 't1', status: 'done' });
    expect(session.slice(Tools).all()).toEqual([
      { id: 't1', status: 'done' },
      { id: 't2', status: 'running' },
    ]);
    expect(types).toEqual([SliceLatestReplaced.type, SliceLatestReplaced.type, SliceLatestReplaced.type, SliceLatestReplaced.type]);
    expect(() => session.slice(Tools).replaceLatestBy('id', { id: 3 } as never)).toThrow(InvalidSliceItemError);
    expect(session.lastSeq).toBe(4);
  });
});

describe('session.dispatch(InitializeSlice(Plan, [initialPlan])) and dispatch(ClearSlice(Plan)): equivalent to seed and clear', () => {
  it('dispatches the same audited events as seed and clear', () => {
    const byEvent = createSession({ slices: [Plan] });
    const byMethod = createSession({ slices: [Plan] });
    const eventTypes = recordTypes(byEvent);
    const methodTypes = recordTypes(byMethod);
    const initialPlan = { steps: ['plan', 'code'] };
    const env = byEvent.dispatch(InitializeSlice(Plan, [initialPlan]));
    byMethod.slice(Plan).seed([initialPlan]);
    expect(byEvent.slice(Plan).all()).toEqual([initialPlan]);
    expect(byEvent.slice(Plan).all()).toEqual(byMethod.slice(Plan).all());
    expect(env.event).toEqual(SliceSeeded({ slice: 'plan', items: [initialPlan] }));
    expect(env.meta).toEqual({ source: 'rxslice' });
    byEvent.dispatch(ClearSlice(Plan));
    byMethod.slice(Plan).clear();
    expect(byEvent.slice(Plan).isEmpty).toBe(true);
    expect(eventTypes).toEqual([SliceSeeded.type, SliceCleared.type]);
    expect(eventTypes).toEqual(methodTypes);
  });

  it('validates the items as seed does (nothing changes on a bad item)', () => {
    const session = createSession({ slices: [Plan] });
    expect(() => session.dispatch(InitializeSlice(Plan, [{ steps: 'x' } as never]))).toThrow(InvalidSliceItemError);
    expect(session.slice(Plan).all()).toEqual([{ steps: [] }]);
    expect(session.lastSeq).toBe(0);
    const Other = defineSlice('other', { policy: 'log' });
    expect(() => session.dispatch(ClearSlice(Other))).toThrow(SliceNotRegisteredError);
  });

  it('refuses a raw object with a reserved type: it could forge a library event', () => {
    const session = createSession({ slices: [Plan], unknownEvents: 'accept' });
    const forged = JSON.parse(JSON.stringify(InitializeSlice(Plan, [{ steps: ['forged'] }])));
    expect(forged.type).toBe('rxslice.slice.seeded');
    expect(() => session.dispatch(forged)).toThrow(ReservedEventTypeError);
    expect(() => session.dispatch({ type: 'rxslice.slice.cleared', payload: { slice: 'plan' } })).toThrow(ReservedEventTypeError);
    expect(session.slice(Plan).all()).toEqual([{ steps: [] }]);
  });
});

describe('session.reset(): "Clear all slices"', () => {
  it('clears every slice by default, and returns them to their initial items with { to: "initial" }; both audited', () => {
    const session = createSession({ slices: [Plan, WorkspaceDigest] });
    const resets: unknown[] = [];
    session.committed$.subscribe((c) => resets.push(c.event.payload));
    session.slice(Plan).replaceLatest({ steps: ['a'] });
    session.slice(WorkspaceDigest).append({ path: 'a', summary: '' });
    session.reset();
    expect(session.slice(Plan).isEmpty).toBe(true);
    expect(session.slice(WorkspaceDigest).isEmpty).toBe(true);
    session.reset({ to: 'initial' });
    expect(session.slice(Plan).all()).toEqual([{ steps: [] }]);
    expect(resets.slice(2)).toEqual([{ to: 'empty' }, { to: 'initial' }]);
    expect(() => session.reset({ to: 'nothing' as never })).toThrow(/'empty' or 'initial'/);
  });
});

describe('helper reducers as the document names them: register(Plan, replace_latest), register(Notification, append_all)', () => {
  it('takes the uncalled helpers as reducers (the helper with its defaults)', () => {
    const session = createSession({ slices: [Plan, Notification] });
    session.slice(Plan).register(PlanSet, replaceLatest);
    session.slice(Notification).register(NotificationsArrived, appendAll);
    session.dispatch(PlanSet({ steps: ['read'] }));
    session.dispatch(PlanSet({ steps: ['read', 'fix'] }));
    session.dispatch(NotificationsArrived([{ id: 'n1', text: 'built' }, { id: 'n2', text: 'tested' }]));
    expect(session.slice(Plan).all()).toEqual([{ steps: ['read', 'fix'] }]);
    expect(session.slice(Notification).all().map((n: Note) => n.id)).toEqual(['n1', 'n2']);
  });

  it('in a slice declaration too: on(PlanSet, replaceLatest)', () => {
    const Declared = defineSlice('declared', { policy: 'state', schema: PlanItem, reducers: ({ on }) => [on(PlanSet, replaceLatest)] });
    const session = createSession({ slices: [Declared] });
    session.dispatch(PlanSet({ steps: ['x'] }));
    session.dispatch(PlanSet({ steps: ['y'] }));
    expect(session.slice(Declared).all()).toEqual([{ steps: ['y'] }]);
  });
});

