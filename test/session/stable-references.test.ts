import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { append, createSession, defineComputed, defineEvent, defineSlice, replace } from '../../src/index';

const Added = defineEvent('ref/added', z.object({ text: z.string() }));
const Counted = defineEvent('ref/counted', z.object({ by: z.number() }));
const Other = defineEvent('ref/other', z.object({}));

const Notes = defineSlice('notes', {
  policy: 'log',
  schema: z.object({ text: z.string() }),
  reducers: ({ on }) => [on(Added, (_v, e) => append({ text: e.payload.text }))],
});
const Count = defineSlice('count', {
  policy: 'state',
  initial: [{ n: 0 }],
  reducers: ({ onLatest }) => [onLatest(Counted, (c, e) => ({ n: (c?.n ?? 0) + e.payload.by }))],
});
const Untouched = defineSlice('untouched', { policy: 'state', initial: [1], reducers: ({ on }) => [on(Other, (v) => append(v.size + 1))] });
const NoteCount = defineComputed('noteCount', [Notes], (notes) => ({ count: notes.length }));

describe('identity is the version: reads are the same objects until the slice changes', () => {
  it('all() of a log slice (a read-only view of a shared buffer) is the same object until an append', () => {
    const session = createSession({ slices: [Notes, Count, Untouched] });
    const notes = session.slice(Notes);
    session.dispatch(Added({ text: 'a' }));
    const first = notes.all();
    expect(notes.all()).toBe(first);
    expect(session.read(Notes)).toBe(first);
    // Another slice's commit does not make a new view of this one.
    session.dispatch(Counted({ by: 1 }));
    expect(notes.all()).toBe(first);
    session.dispatch(Added({ text: 'b' }));
    const second = notes.all();
    expect(second).not.toBe(first);
    expect(notes.all()).toBe(second);
    expect(first).toEqual([{ text: 'a' }]);
    expect(second).toEqual([{ text: 'a' }, { text: 'b' }]);
  });

  it('all() and latest() of a state slice are the same objects until its version changes', () => {
    const session = createSession({ slices: [Notes, Count, Untouched] });
    const count = session.slice(Count);
    const all = count.all();
    const latest = count.latest();
    expect(count.all()).toBe(all);
    expect(count.latest()).toBe(latest);
    session.dispatch(Added({ text: 'x' }));
    expect(count.all()).toBe(all);
    expect(count.latest()).toBe(latest);
    session.dispatch(Counted({ by: 2 }));
    expect(count.all()).not.toBe(all);
    expect(count.latest()).toEqual({ n: 2 });
    expect(count.latest()).toBe(count.latest());
    expect(count.all()).toBe(count.all());
  });

  it('the value all$ emits is === to all() at that moment, on subscribe and after each commit', () => {
    const session = createSession({ slices: [Notes, Count, Untouched] });
    const notes = session.slice(Notes);
    const pairs: [readonly unknown[], readonly unknown[]][] = [];
    notes.all$.subscribe((items) => pairs.push([items, notes.all()]));
    session.dispatch(Added({ text: 'a' }));
    session.dispatch(Added({ text: 'b' }));
    expect(pairs).toHaveLength(3);
    for (const [emitted, read] of pairs) expect(emitted).toBe(read);
    const latestSeen: unknown[] = [];
    session.slice(Count).latest$.subscribe((v) => latestSeen.push(v));
    session.dispatch(Counted({ by: 1 }));
    expect(latestSeen[latestSeen.length - 1]).toBe(session.slice(Count).latest());
  });

  it('a computed value and what value$ emits are the same object until a source changes', () => {
    const session = createSession({ slices: [Notes, Count, Untouched] });
    const handle = session.computed(NoteCount);
    const emitted: unknown[] = [];
    handle.value$.subscribe((v) => emitted.push(v));
    const v0 = handle.latest();
    expect(handle.latest()).toBe(v0);
    expect(emitted[0]).toBe(v0);
    session.dispatch(Counted({ by: 1 }));
    expect(handle.latest()).toBe(v0);
    session.dispatch(Added({ text: 'a' }));
    const v1 = handle.latest();
    expect(v1).toEqual({ count: 1 });
    expect(handle.latest()).toBe(v1);
    expect(emitted[emitted.length - 1]).toBe(v1);
  });
});

describe('a validated replace normalises only the items that are new to the slice', () => {
  const Todo = z.object({ id: z.number(), text: z.string() });
  const TodosSet = defineEvent('todo/set', z.object({ items: z.array(Todo) }));
  const Todos = defineSlice('todos', {
    policy: 'state',
    schema: Todo,
    initial: [],
    reducers: ({ on }) => [on(TodosSet, (_v, e) => replace(e.payload.items))],
  });
  const Prepend = defineEvent('todo/prepend', z.object({ id: z.number() }));
  const Drop = defineEvent('todo/drop', z.object({ id: z.number() }));
  const Edit = defineSlice('todos2', {
    policy: 'state',
    schema: Todo,
    initial: [{ id: 1, text: 'a' }, { id: 2, text: 'b' }, { id: 3, text: 'c' }],
    reducers: ({ on }) => [
      on(Prepend, (v, e) => replace([{ id: e.payload.id, text: 'new', extra: 'stripped' } as never, ...v.all()])),
      on(Drop, (v, e) => replace(v.all().filter((t) => t.id !== e.payload.id))),
    ],
  });

  it('kept items stay the same objects after an insertion in front and after removals; new ones are the schema output', () => {
    const session = createSession({ slices: [Todos, Edit], validation: 'always' });
    const handle = session.slice(Edit);
    const before = handle.all();
    session.dispatch(Prepend({ id: 0 }));
    const after = handle.all();
    expect(after.slice(1)).toEqual(before);
    after.slice(1).forEach((t, i) => expect(t).toBe(before[i]));
    expect(after[0]).toEqual({ id: 0, text: 'new' }); // unknown key stripped: normalised
    session.dispatch(Drop({ id: 1 }));
    session.dispatch(Drop({ id: 0 }));
    expect(handle.all()).toEqual([{ id: 2, text: 'b' }, { id: 3, text: 'c' }]);
    expect(handle.all()[0]).toBe(before[1]);
    expect(handle.all()[1]).toBe(before[2]);
    expect(session.slice(Todos).all()).toEqual([]);
  });
});
