import { appendFileSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { add, CheckpointError, createCheckpointer, createSession, defineState, field, memoryCheckpoints, type CheckpointStorage } from '../../src/index';
import { checkpointFiles } from '../../src/jsonl/index';

const Message = z.object({ role: z.string(), text: z.string() });
const Chat = defineState('chat', {
  messages: field(z.array(Message), { reducer: add, default: [] }),
  phase: field(z.string(), { default: 'start' }),
});
type Update = Parameters<typeof Chat.update>[0];
const say = (text: string): Update => ({ messages: [{ role: 'user', text }] });

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));
const freshDir = () => {
  const d = mkdtempSync(join(tmpdir(), 'rxslice-checkpoints-'));
  dirs.push(d);
  return d;
};
const backends: [string, () => CheckpointStorage][] = [
  ['memory', () => memoryCheckpoints()],
  ['files', () => checkpointFiles(freshDir(), { fsync: false })],
];

describe.each(backends)('checkpointer on %s', (_name, storage) => {
  it('records each step as a checkpoint with its parent; history is newest first with limit, before and filter', () => {
    let t = 1000;
    const cp = createCheckpointer({ state: Chat, storage: storage(), now: () => t++ });
    const a = cp.put('t1', [say('hi')]);
    const b = cp.put('t1', [say('there'), { phase: 'talk' }], { writer: 'agent' });
    const c = cp.put('t1', [say('bye')]);
    expect(a.parentId).toBeNull();
    expect(a.metadata).toMatchObject({ source: 'input', step: 0 });
    expect(b.parentId).toBe(a.id);
    expect(b.metadata).toMatchObject({ source: 'loop', step: 1, writer: 'agent' });
    expect(c.values.messages.map((m) => m.text)).toEqual(['hi', 'there', 'bye']);
    expect(Object.isFrozen(c.values)).toBe(true);
    expect(cp.history('t1').map((x) => x.id)).toEqual([c.id, b.id, a.id]);
    expect(cp.history('t1', { limit: 1 }).map((x) => x.id)).toEqual([c.id]);
    expect(cp.history('t1', { before: c.id }).map((x) => x.id)).toEqual([b.id, a.id]);
    expect(cp.history('t1', { filter: { writer: 'agent' } }).map((x) => x.id)).toEqual([b.id]);
    expect(cp.getAt('t1', b.id).values).toEqual({ messages: [{ role: 'user', text: 'hi' }, { role: 'user', text: 'there' }], phase: 'talk' });
    expect(cp.latest('t1')?.id).toBe(c.id);
    expect(cp.latest('other')).toBeUndefined();
    expect(() => cp.getAt('t1', 'nope')).toThrow(CheckpointError);
  });

  it('updateState writes as a node; fork starts a new thread from a past checkpoint; deleteThread removes it', () => {
    const cp = createCheckpointer({ state: Chat, storage: storage() });
    const a = cp.put('t1', [say('a')]);
    cp.put('t1', [say('b')]);
    const u = cp.updateState('t1', { phase: 'reviewed' }, { asNode: 'reviewer' });
    expect(u.metadata).toMatchObject({ source: 'update', asNode: 'reviewer', step: 2 });
    const f = cp.fork('t1', a.id, 't2');
    expect(f.metadata).toMatchObject({ source: 'fork', step: 0, forkedFrom: { threadId: 't1', checkpointId: a.id } });
    cp.put('t2', [say('other path')]);
    expect(cp.latest('t2')?.values.messages.map((m) => m.text)).toEqual(['a', 'other path']);
    expect(cp.latest('t1')?.values.messages.map((m) => m.text)).toEqual(['a', 'b']);
    expect(() => cp.fork('t1', a.id, 't2')).toThrow(/already exists/);
    cp.deleteThread('t2');
    expect(cp.latest('t2')).toBeUndefined();
    expect(() => cp.put('t1', [{ messages: 'x' } as never])).toThrow(CheckpointError);
    expect(() => cp.put('t1', [{ phase: 'x' }, { phase: 'y' }])).toThrow(expect.objectContaining({ code: 'INVALID_UPDATE' }));
    expect(cp.history('t1')).toHaveLength(3);
  });

  it('stores deltas: 1,000 steps of ~2 KB messages take at most 1.2× the messages’ bytes, and any checkpoint reads back exactly', () => {
    const cp = createCheckpointer({ state: Chat, storage: storage() });
    const text = 'x'.repeat(2000);
    let messageBytes = 0;
    const ids: string[] = [];
    for (let i = 0; i < 1000; i++) {
      const m = { role: 'user', text: `${i}:${text}` };
      messageBytes += JSON.stringify(m).length;
      ids.push(cp.put('long', [{ messages: [m] }]).id);
    }
    expect(cp.bytes() / messageBytes).toBeLessThanOrEqual(1.2);
    // Replay determinism: the stored deltas rebuild every checkpoint exactly.
    const history = cp.history('long');
    expect(history).toHaveLength(1000);
    for (const k of [0, 1, 499, 998, 999]) expect(cp.getAt('long', ids[k] as string).values.messages).toHaveLength(k + 1);
  });

  it('writes a full record once the deltas outweigh fullRatio copies of the state (a small state updated often)', () => {
    const store = storage();
    const cp = createCheckpointer({ state: Chat, storage: store, fullRatio: 4 });
    for (let i = 0; i < 200; i++) cp.put('busy', [{ phase: `phase-${i % 7}` }]);
    const records = store.read('busy');
    const fulls = records.filter((r) => r.values !== undefined).length;
    expect(fulls).toBeGreaterThan(5);
    expect(fulls).toBeLessThan(100);
    expect(cp.latest('busy')?.values.phase).toBe('phase-3');
    expect(cp.history('busy').map((c) => c.values.phase).slice(0, 3)).toEqual(['phase-3', 'phase-2', 'phase-1']);
  });

  it('retention keeps the newest keepLast and the young ones (ttlMs); what is kept still decodes', () => {
    let t = 0;
    const cp = createCheckpointer({ state: Chat, storage: storage(), now: () => t });
    for (let i = 0; i < 10; i++) {
      t = i * 100;
      cp.put('t1', [say(`${i}`)]);
    }
    t = 2000;
    cp.put('old', [say('ancient')]);
    t = 5000;
    expect(() => cp.prune({})).toThrow(CheckpointError);
    expect(cp.prune({ keepLast: 3, ttlMs: 3500 })).toBe(7);
    expect(cp.history('t1').map((c) => c.values.messages.at(-1)?.text)).toEqual(['9', '8', '7']);
    expect(cp.history('t1').at(-1)?.values.messages).toHaveLength(8);
    expect(cp.latest('old')).toBeDefined();
    expect(cp.prune({ ttlMs: 1000 })).toBe(4);
    expect(cp.latest('old')).toBeUndefined();
    expect(cp.latest('t1')).toBeUndefined();
  });

  it('attach records every committed update of a session as a checkpoint of the thread', () => {
    const cp = createCheckpointer({ state: Chat, storage: storage() });
    const session = createSession({ slices: [Chat] });
    const sub = cp.attach(session, 'live');
    session.dispatch(Chat.update(say('one')));
    session.dispatch(Chat.updateMany([say('two'), { phase: 'p' }]));
    sub.unsubscribe();
    session.dispatch(Chat.update(say('not recorded')));
    expect(cp.latest('live')?.values).toEqual({ messages: [{ role: 'user', text: 'one' }, { role: 'user', text: 'two' }], phase: 'p' });
    expect(cp.history('live').map((c) => c.metadata['seq'])).toEqual([2, 1]);
  });
});

describe('checkpointFiles', () => {
  it('a reopened directory reads every thread back; a torn last line is ignored and replaced; damage before it fails closed', () => {
    const dir = freshDir();
    const cp = createCheckpointer({ state: Chat, storage: checkpointFiles(dir) });
    cp.put('a/b', [say('1')]);
    cp.put('a/b', [say('2')]);
    const reopened = createCheckpointer({ state: Chat, storage: checkpointFiles(dir) });
    expect(reopened.latest('a/b')?.values.messages).toHaveLength(2);
    const [file] = readdirSync(dir);
    appendFileSync(join(dir, file as string), '{"crc":"0000'); // a crash mid-append
    const again = createCheckpointer({ state: Chat, storage: checkpointFiles(dir) });
    expect(again.latest('a/b')?.values.messages).toHaveLength(2);
    again.put('a/b', [say('3')]);
    expect(createCheckpointer({ state: Chat, storage: checkpointFiles(dir) }).latest('a/b')?.values.messages.map((m) => m.text)).toEqual(['1', '2', '3']);
    const text = readFileSync(join(dir, file as string), 'utf8');
    writeFileSync(join(dir, file as string), text.replace('"text":"1"', '"text":"X"'));
    expect(() => createCheckpointer({ state: Chat, storage: checkpointFiles(dir) }).latest('a/b')).toThrow(expect.objectContaining({ code: 'CHECKPOINT_CORRUPT' }));
  });

  it('decoding fails closed on a record whose value the schema refuses (valid CRC, wrong content)', () => {
    const storage = memoryCheckpoints();
    storage.append({ id: 'x', threadId: 't', parentId: null, createdAt: 0, metadata: { source: 'input', step: 0 }, values: { messages: 'nope', phase: 'a' } });
    expect(() => createCheckpointer({ state: Chat, storage }).latest('t')).toThrow(/holds a value the state's schema refuses/);
    storage.append({ id: 'y', threadId: 'u', parentId: 'missing', createdAt: 0, metadata: { source: 'loop', step: 1 }, updates: [] });
    expect(() => createCheckpointer({ state: Chat, storage }).latest('u')).toThrow(/parent missing is not before it/);
  });
});
