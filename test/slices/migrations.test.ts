import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  defineSlice,
  InvalidSliceDefinitionError,
  isRxSliceError,
  migrateItems,
  MigrationError,
  SliceVersionError,
} from '../../src/index';

// v1: plain strings; v2: { text }; v3: { text, tags }.
const Note = z.object({ text: z.string(), tags: z.array(z.string()) });
const Notes = defineSlice('notes', {
  policy: 'log',
  schema: Note,
  version: 3,
  migrations: {
    1: (n: string) => ({ text: n }),
    2: (n: { text: string }) => ({ ...n, tags: [] }),
  },
});

describe('defineSlice version and migrations', () => {
  it('defaults to version 1 with no migrations', () => {
    const S = defineSlice('s', { policy: 'state' });
    expect(S.version).toBe(1);
    expect(S.migrations).toEqual({});
  });

  it('keeps the version and a frozen copy of the migrations', () => {
    expect(Notes.version).toBe(3);
    expect(Object.isFrozen(Notes.migrations)).toBe(true);
    expect(Object.keys(Notes.migrations)).toEqual(['1', '2']);
  });

  it.each([
    ['version 0', { version: 0 }, /version must be an integer ≥ 1, got 0/],
    ['a fractional version', { version: 1.5 }, /version must be an integer ≥ 1, got 1.5/],
    ['a string version', { version: '2' as unknown as number }, /version must be an integer ≥ 1, got "2"/],
    ['version 3 without migrations', { version: 3 }, /version 3 needs migrations for steps 1 to 2/],
    ['a missing middle step', { version: 3, migrations: { 1: (x: unknown) => x } }, /migrations\[2\] \(version 2 → 3\) is missing/],
    ['a missing first step', { version: 3, migrations: { 2: (x: unknown) => x } }, /migrations\[1\] \(version 1 → 2\) is missing/],
    ['a step that is not a function', { version: 2, migrations: { 1: 'x' as unknown as (x: unknown) => unknown } }, /migrations\[1\].*not a function/],
    ['a key at the current version', { version: 2, migrations: { 1: (x: unknown) => x, 2: (x: unknown) => x } }, /key "2"/],
    ['a key 0', { version: 2, migrations: { 0: (x: unknown) => x, 1: (x: unknown) => x } }, /key "0"/],
    ['migrations that are an array', { version: 2, migrations: [(x: unknown) => x] as unknown as Record<number, (x: unknown) => unknown> }, /must be an object/],
  ])('rejects %s at definition time', (_label, extra, message) => {
    const define = () => defineSlice('bad', { policy: 'log', ...extra });
    expect(define).toThrow(InvalidSliceDefinitionError);
    expect(define).toThrow(message);
  });
});

describe('migrateItems', () => {
  it('runs the whole chain from version 1 and validates with the current schema', () => {
    expect(migrateItems(Notes, ['a', 'b'], 1)).toEqual([
      { text: 'a', tags: [] },
      { text: 'b', tags: [] },
    ]);
  });

  it('runs only the steps from the stored version', () => {
    expect(migrateItems(Notes, [{ text: 'a' }], 2)).toEqual([{ text: 'a', tags: [] }]);
  });

  it('only validates items of the current version, keeping the schema output (unknown keys stripped)', () => {
    expect(migrateItems(Notes, [{ text: 'a', tags: ['x'], extra: 1 }], 3)).toEqual([{ text: 'a', tags: ['x'] }]);
  });

  it('leaves its input untouched and returns a fresh array', () => {
    const stored = Object.freeze([Object.freeze({ text: 'a' })]);
    const out = migrateItems(Notes, stored, 2);
    expect(out).not.toBe(stored);
    expect(stored).toEqual([{ text: 'a' }]);
  });

  it('returns the migrated values as they are for a slice without a schema', () => {
    const Raw = defineSlice('raw', { policy: 'log', version: 2, migrations: { 1: (n: number) => n * 10 } });
    expect(migrateItems(Raw, [1, 2], 1)).toEqual([10, 20]);
  });

  it('fails clearly on data stored by newer code', () => {
    let error: unknown;
    try {
      migrateItems(Notes, [{ text: 'a', tags: [], color: 'red' }], 4);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(SliceVersionError);
    expect(isRxSliceError(error) && error.code).toBe('SLICE_VERSION_TOO_NEW');
    expect((error as SliceVersionError).storedVersion).toBe(4);
    expect((error as SliceVersionError).codeVersion).toBe(3);
    expect((error as Error).message).toMatch(/stored at schema version 4, newer than this code's version 3/);
  });

  it.each([0, -1, 1.5, Number.NaN, '2' as unknown as number])('rejects the stored version %s as invalid', (v) => {
    expect(() => migrateItems(Notes, [], v)).toThrow(expect.objectContaining({ code: 'SLICE_VERSION_INVALID' }));
  });

  it('reports a throwing step with its key, the item index and the cause', () => {
    const boom = new Error('boom');
    const S = defineSlice('s', {
      policy: 'log',
      version: 3,
      migrations: {
        1: (n: number) => n,
        2: (n: number) => {
          if (n === 7) throw boom;
          return n;
        },
      },
    });
    let error: unknown;
    try {
      migrateItems(S, [1, 7], 1);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(MigrationError);
    const m = error as MigrationError;
    expect([m.code, m.step, m.itemIndex, m.fromVersion, m.toVersion, m.cause]).toEqual(['MIGRATION_FAILED', 2, 1, 1, 3, boom]);
    expect(m.message).toMatch(/Migration 2 → 3 of slice "s" failed on stored item 1: boom/);
  });

  it('reports a result that fails the current schema with zod issues', () => {
    const Broken = defineSlice('broken', { policy: 'log', schema: Note, version: 2, migrations: { 1: (n: string) => ({ text: n }) } });
    let error: unknown;
    try {
      migrateItems(Broken, ['a'], 1);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(MigrationError);
    const m = error as MigrationError;
    expect(m.step).toBeUndefined();
    expect(m.issues.map((i) => [i.code, i.path])).toEqual([['invalid_type', ['tags']]]);
    expect(m.message).toMatch(/migrated from version 1 to 2, does not match the current schema \(tags:/);
  });

  it('reports current-version items that fail the schema', () => {
    expect(() => migrateItems(Notes, [{ text: 1 }], 3)).toThrow(/Stored item 0 of slice "notes" \(version 3\) does not match its schema/);
  });

  it('reports a step that mutates a frozen stored item', () => {
    const Mutating = defineSlice('mutating', {
      policy: 'log',
      version: 2,
      migrations: {
        1: (n: { text: string; tags?: string[] }) => {
          n.tags = [];
          return n;
        },
      },
    });
    expect(() => migrateItems(Mutating, [Object.freeze({ text: 'a' })], 1)).toThrow(MigrationError);
  });
});
