/**
 * The journal's hand-written encoders against the definitions they stand in for: a line of the
 * `JournalEncoder` is `encodeRecord` with `JSON.stringify(ops)`, `crc32Range` is zlib's `crc32` of the range, a record written by the
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
import { JournalEncoder } from '../../src/jsonl/journal-encoder';
import { encodeRecord, scanJournal, type JournalOp } from '../../src/jsonl/journal-format';
import { OpLog } from '../../src/jsonl/op-log';
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

/** One change a transaction records: an appended item, the only item replaced, or any op. */
type Step = readonly ['append', unknown] | readonly ['replaceOne', unknown] | readonly ['op', JournalOp];
const step: fc.Arbitrary<Step> = fc.oneof(
  item.map((x) => ['append', x] as const),
  item.map((x) => ['replaceOne', x] as const),
  op.map((o) => ['op', o] as const),
);

/** The ops `steps` stand for: consecutive appends make one `a` op. */
function opsOf(steps: readonly Step[]): JournalOp[] {
  const ops: JournalOp[] = [];
  steps.forEach(([kind, arg], i) => {
    if (kind === 'op') ops.push(arg as JournalOp);
    else if (kind === 'replaceOne') ops.push(['r', [arg]]);
    else if (steps[i - 1]?.[0] === 'append') (ops[ops.length - 1]?.[1] as unknown[]).push(arg);
    else ops.push(['a', [arg]]);
  });
  return ops;
}

function logOf(steps: readonly Step[]): OpLog {
  const log = new OpLog();
  for (const [kind, arg] of steps) {
    if (kind === 'append') log.append(arg);
    else if (kind === 'replaceOne') log.replaceOne(arg);
    else log.op(arg as JournalOp);
  }
  return log;
}

/** The line `encoder` writes for record `seq` with `slices` (each: name, schema version, steps). */
function encodeWith(encoder: JournalEncoder, seq: number, prev: number, at: number, slices: readonly (readonly [string, number, readonly Step[]])[]): Buffer {
  encoder.start(seq, prev, at);
  slices.forEach(([name, v, steps], i) => encoder.slice(Buffer.from(`${JSON.stringify(name)}:{"v":${v},"ops":`), i === 0, logOf(steps)));
  const length = encoder.finish();
  return Buffer.from(encoder.bytes.subarray(0, length));
}

/** `encodeRecord` of the same record: what the encoder must write, byte for byte. */
function expectedLine(seq: number, prev: number, at: number, slices: readonly (readonly [string, number, readonly Step[]])[]): Buffer {
  const body = slices.map(([name, v, steps]) => `${JSON.stringify(name)}:${JSON.stringify({ v, ops: opsOf(steps) })}`).join(',');
  return Buffer.from(encodeRecord(seq, prev, at, `{${body}}`), 'utf8');
}

describe('JournalEncoder', () => {
  it('writes the bytes of encodeRecord with JSON.stringify(ops), for every op kind, item, seq and time', () => {
    const encoder = new JournalEncoder();
    const slice = fc.tuple(fc.string({ unit: 'binary', maxLength: 6 }), fc.integer({ min: 1, max: 1000 }), fc.array(step, { minLength: 1, maxLength: 5 }));
    const at = fc.oneof(fc.maxSafeNat(), fc.double(), fc.integer());
    fc.assert(
      fc.property(fc.maxSafeNat(), fc.maxSafeNat(), at, fc.array(slice, { minLength: 1, maxLength: 3 }), (seq, prev, time, slices) => {
        expect(encodeWith(encoder, seq, prev, time, slices).toString('utf8')).toBe(expectedLine(seq, prev, time, slices).toString('utf8'));
        expect(encodeWith(encoder, seq, prev, time, slices).equals(expectedLine(seq, prev, time, slices))).toBe(true);
      }),
      { numRuns: 400 },
    );
  });

  it('writes a one-number list as JSON does (-0, exponents, non-finite numbers, integers past 2^31)', () => {
    const encoder = new JournalEncoder();
    for (const n of [0, -0, 1, -1, -1.5, 2 ** 31, 2 ** 53 - 1, 2 ** 53, 1e21, 1e-7, 5e-324, Number.MAX_VALUE, Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY]) {
      for (const steps of [[['replaceOne', n]], [['append', n]], [['op', ['r', [n]]]], [['op', ['u', 0, [n]]]]] as Step[][]) {
        expect(encodeWith(encoder, 1, 0, 5, [['s', 1, steps]]).equals(expectedLine(1, 0, 5, [['s', 1, steps]]))).toBe(true);
      }
    }
  });

  it('writes a one-item list as JSON does, also for items with toJSON (called with the key "0" inside a list)', () => {
    const encoder = new JournalEncoder();
    const keyed = { toJSON: (key: string) => `key ${key}` };
    const nested = { at: new Date(0), inner: { toJSON: (key: string) => key } };
    for (const only of [keyed, new Date(0), nested, { a: undefined, b: [undefined] }, [1, [2]], 'text', null, undefined]) {
      for (const steps of [[['replaceOne', only]], [['append', only]], [['op', ['a', [only]]]]] as Step[][]) {
        expect(encodeWith(encoder, 1, 0, 5, [['s', 1, steps]]).toString('utf8')).toBe(expectedLine(1, 0, 5, [['s', 1, steps]]).toString('utf8'));
      }
    }
  });

  it('grows its buffer for a large record and goes on writing small ones exactly', () => {
    const encoder = new JournalEncoder();
    const big = { text: '\u20ac'.repeat(40_000) };
    const records: [number, readonly (readonly [string, number, readonly Step[]])[]][] = [
      [1, [['s', 1, [['append', { a: 1 }]]]]],
      [2, [['s', 1, [['append', big], ['append', 2]]]]],
      [3, [['s', 1, [['replaceOne', { a: 3 }]]], ['t', 2, [['op', ['c']]]]]],
      [4, [['s', 1, [['op', ['r', Array.from({ length: 3000 }, (_, i) => ({ i, text: 'x'.repeat(20) }))]]]]]],
      [5, [['s', 1, [['append', 5]]]]],
    ];
    for (const [seq, slices] of records) expect(encodeWith(encoder, seq, seq - 1, 1_700_000_000_000 + seq, slices).equals(expectedLine(seq, seq - 1, 1_700_000_000_000 + seq, slices))).toBe(true);
  });

  it('forgets the items of a cleared log', () => {
    const log = logOf([['append', { a: 1 }], ['append', { a: 2 }], ['replaceOne', { a: 3 }]]);
    log.clear();
    expect(log.length).toBe(0);
    expect(log.entries.every((e) => e === undefined)).toBe(true);
    log.append(4);
    const encoder = new JournalEncoder();
    encoder.start(1, 0, 0);
    encoder.slice(Buffer.from('"s":{"v":1,"ops":'), true, log);
    expect(encoder.bytes.subarray(0, encoder.finish()).toString('utf8')).toBe(encodeRecord(1, 0, 0, '{"s":{"v":1,"ops":[["a",[4]]]}}'));
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
