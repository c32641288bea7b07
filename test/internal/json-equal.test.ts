import { describe, expect, it } from 'vitest';
import { jsonEqual } from '../../src/internal/json-equal';

describe('jsonEqual', () => {
  it('equal JSON data: primitives, arrays in order, objects in any key order, shared parts', () => {
    const shared = { deep: [1, { x: 'y' }] };
    expect(jsonEqual({ a: 1, b: [true, null, 'x'], c: shared }, { c: { deep: [1, { x: 'y' }] }, b: [true, null, 'x'], a: 1 })).toBe(true);
    expect(jsonEqual(shared, shared)).toBe(true);
    expect(jsonEqual(0, -0)).toBe(true); // JSON writes both as 0
    expect(jsonEqual([], [])).toBe(true);
  });

  it('different JSON data: a value, an order, a missing or extra key, an array against an object, null against an object', () => {
    expect(jsonEqual({ a: [1, 2] }, { a: [2, 1] })).toBe(false);
    expect(jsonEqual({ a: 1 }, { a: 1, b: 2 })).toBe(false);
    expect(jsonEqual({ a: 1, b: 2 }, { a: 1, c: 2 })).toBe(false);
    expect(jsonEqual([1], { 0: 1 })).toBe(false);
    expect(jsonEqual({ 0: 1 }, [1])).toBe(false);
    expect(jsonEqual(null, {})).toBe(false);
    expect(jsonEqual('1', 1)).toBe(false);
    expect(jsonEqual({ a: { b: { c: 'x' } } }, { a: { b: { c: 'y' } } })).toBe(false);
  });

  it('any depth (no recursion)', () => {
    const deep = (n: number) => {
      let v: unknown = 'leaf';
      for (let i = 0; i < n; i++) v = [v];
      return v;
    };
    expect(jsonEqual(deep(100_000), deep(100_000))).toBe(true);
  });
});
