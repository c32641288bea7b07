/**
 * The journal's hand-written encoders against the definitions they stand in for: `opsJson` is
 * `JSON.stringify(ops)`, `crc32Range` is zlib's `crc32` of the range, a record written by the
 * journal is `encodeRecord` of the same fields, and a scanned journal reads the same with or
 * without characters beyond ASCII.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { append, createSession, defineEvent, defineSlice } from '../../src/index';
import { crc32Range } from '../../src/jsonl/crc32';
import { encodeRecord, opsJson, scanJournal, type JournalOp } from '../../src/jsonl/journal-format';
import { jsonl } from '../../src/jsonl/index';

const anyJson = fc.oneof(fc.jsonValue(), fc.jsonValue({ stringUnit: 'binary' }));
/** Items as state and log slices hold them, plus the values JSON.stringify rewrites (non-finite numbers, -0, undefined in a list). */
const item = fc.oneof(anyJson, fc.double(), fc.constantFrom(-0, Number.NaN, Number.POSITIVE_INFINITY, 1e21, 5e-324, undefined, null));
const list = fc.array(item, { maxLength: 4 });
const count = fc.nat({ max: 1_000_000 });
const op: fc.Arbitrary<JournalOp> = fc.oneof(
  list.map((l) => ['a', l] as const),
  list.map((l) => ['r', l] as const),
  fc.tuple(list, count).map(([l, n]) => ['s', l, n] as const),
  fc.constant(['c'] as const),
  count.map((n) => ['f', n] as const),
  count.map((n) => ['b', n] as const),
  fc.array(count, { maxLength: 4 }).map((l) => ['i', l] as const),
  fc.tuple(count, item).map(([i, x]) => ['u', i, [x]] as const),
);

describe('opsJson', () => {
  it('is JSON.stringify(ops) for every op kind and item', () => {
    fc.assert(
      fc.property(fc.array(op, { minLength: 1, maxLength: 5 }), (ops) => {
        expect(opsJson(ops)).toBe(JSON.stringify(ops));
      }),
      { numRuns: 300 },
    );
  });

  it('writes a one-number list as JSON does (-0, exponents, non-finite numbers)', () => {
    for (const n of [0, -0, 1, -1.5, 1e21, 1e-7, 5e-324, Number.MAX_VALUE, Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY]) {
      expect(opsJson([['r', [n]]])).toBe(JSON.stringify([['r', [n]]]));
    }
  });

  it('writes a one-item list as JSON does, also for items with toJSON (called with the key "0" inside a list)', () => {
    const keyed = { toJSON: (key: string) => `key ${key}` };
    const nested = { at: new Date(0), inner: { toJSON: (key: string) => key } };
    for (const only of [keyed, new Date(0), nested, { a: undefined, b: [undefined] }, [1, [2]], 'text', null]) {
      expect(opsJson([['a', [only]]])).toBe(JSON.stringify([['a', [only]]]));
    }
  });
});

describe('crc32Range', () => {
  it("equals zlib's crc32 of the same bytes copied out, wherever the range sits in the buffer", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 700 }), fc.nat({ max: 20 }), fc.nat({ max: 20 }), (bytes, head, tail) => {
        const buf = Buffer.concat([Buffer.alloc(head, 0xab), bytes, Buffer.alloc(tail, 0xcd)]);
        expect(crc32Range(buf, head, head + bytes.length)).toBe(crc32(Buffer.from(bytes)));
      }),
      { numRuns: 300 },
    );
  });
});

const Item = z.object({ id: z.number(), text: z.string() });
const Added = defineEvent('items/added', Item);
const Items = defineSlice('items', { policy: 'log', schema: Item, reducers: ({ on }) => [on(Added, (_v, e) => append(e.payload))] });
const Count = defineSlice('count', { policy: 'state', schema: z.number(), initial: [0], reducers: ({ onLatest }) => [onLatest(Added, (c) => (c ?? 0) + 1)] });

describe('journal records', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  it("journal a replaced latest item as before: an append on an empty slice, else a replace of the whole new content", () => {
    const dir = mkdtempSync(join(tmpdir(), 'rxslice-journal-latest-'));
    dirs.push(dir);
    const Bumped = defineEvent('count/bumped', z.object({}));
    const Count = defineSlice('count', { policy: 'state', schema: z.number(), reducers: ({ onLatest }) => [onLatest(Bumped, (c) => (c ?? 0) + 1)] });
    const Pair = defineSlice('pair', { policy: 'state', schema: z.number(), initial: [7, 0], reducers: ({ onLatest }) => [onLatest(Bumped, (c) => (c ?? 0) + 1)] });
    const session = createSession({ slices: [Count, Pair], storage: jsonl({ dir, fsync: 'never' }) });
    session.dispatch(Bumped({}));
    session.dispatch(Bumped({}));
    session.dispose();
    const lines = readFileSync(join(dir, 'journal-0.jsonl'), 'utf8').trimEnd().split('\n');
    expect(lines.map((l) => (JSON.parse(l) as { rec: { slices: unknown } }).rec.slices)).toEqual([
      { count: { v: 1, ops: [['a', [1]]] }, pair: { v: 1, ops: [['r', [7, 1]]] } },
      { count: { v: 1, ops: [['r', [2]]] }, pair: { v: 1, ops: [['r', [7, 2]]] } },
    ]);
    const reopened = createSession({ slices: [Count, Pair], storage: jsonl({ dir, fsync: 'never', recovery: 'absolute' }) });
    expect([reopened.slice(Count).all(), reopened.slice(Pair).all()]).toEqual([[2], [7, 2]]);
    reopened.dispose();
  });

  it('are the bytes of encodeRecord, and scan back to the same records with and without non-ASCII text', () => {
    fc.assert(
      fc.property(fc.array(fc.string({ unit: 'binary', maxLength: 12 }), { minLength: 1, maxLength: 12 }), (texts) => {
        const dir = mkdtempSync(join(tmpdir(), 'rxslice-journal-encoding-'));
        dirs.push(dir);
        const session = createSession({ slices: [Items, Count], storage: jsonl({ dir, fsync: 'never' }) });
        const ats: number[] = [];
        session.committed$.subscribe((c) => ats.push(c.at));
        texts.forEach((text, id) => session.dispatch(Added({ id, text })));
        session.dispose();
        const file = join(dir, readdirSync(dir).find((f) => f.startsWith('journal-')) as string);
        const bytes = readFileSync(file);
        const expected = texts
          .map((text, id) =>
            encodeRecord(id + 1, id, ats[id] as number, `{"items":{"v":1,"ops":${JSON.stringify([['a', [{ id, text }]]])}},"count":{"v":1,"ops":${JSON.stringify([['r', [id + 1]]])}}}`),
          )
          .join('');
        expect(bytes.equals(Buffer.from(expected, 'utf8'))).toBe(true);
        const scan = scanJournal(bytes, 0);
        expect(scan.bad).toBeUndefined();
        expect(scan.count).toBe(texts.length);
        expect(scan.records.map((r) => (r.slices['items']?.ops[0]?.[1] as { text: string }[])[0]?.text)).toEqual(texts);
        const reopened = createSession({ slices: [Items, Count], storage: jsonl({ dir, fsync: 'never', recovery: 'absolute' }) });
        expect(reopened.slice(Items).all().map((i) => i.text)).toEqual(texts);
        expect(reopened.slice(Count).all()).toEqual([texts.length]);
        reopened.dispose();
      }),
      { numRuns: 40 },
    );
  });
});
