import { describe, expect, it } from 'vitest';
import { inspect } from 'node:util';
import { arrayView } from '../../src/internal/array-view';

describe('arrayView', () => {
  const buffer = [1, 2, 3, 4, 5];

  it('behaves as a read-only array of the window', () => {
    const v = arrayView(buffer, 1, 4);
    expect(Array.isArray(v)).toBe(true);
    expect(v.length).toBe(3);
    expect([...v]).toEqual([2, 3, 4]);
    expect(v[0]).toBe(2);
    expect(v[3]).toBeUndefined();
    expect(v.at(-1)).toBe(4);
    expect(v.slice(1)).toEqual([3, 4]);
    expect(v.map((x) => x * 10)).toEqual([20, 30, 40]);
    expect(v.filter((x) => x % 2 === 0)).toEqual([2, 4]);
    expect(Object.keys(v)).toEqual(['0', '1', '2']);
    expect(JSON.stringify(v)).toBe('[2,3,4]');
    expect(v).toEqual([2, 3, 4]);
    expect(inspect(v)).toBe('[ 2, 3, 4 ]');
    expect(2 in v).toBe(true);
    expect(3 in v).toBe(false);
  });

  it('throws on every write, as a frozen array does in strict mode', () => {
    const v = arrayView(buffer, 0, 2) as number[];
    expect(() => v.push(9)).toThrow(TypeError);
    expect(() => {
      v[0] = 9;
    }).toThrow(TypeError);
    expect(() => v.pop()).toThrow(TypeError);
    expect(buffer).toEqual([1, 2, 3, 4, 5]);
  });

  it('does not see items appended to the buffer after it was made', () => {
    const buf = [1, 2];
    const v = arrayView(buf, 0, 2);
    buf.push(3);
    expect([...v]).toEqual([1, 2]);
    expect(v.length).toBe(2);
  });

  it('returns a sealed buffer itself when the window covers it', () => {
    const sealed = Object.freeze([1, 2]);
    expect(arrayView(sealed, 0, 2, true)).toBe(sealed);
    expect(arrayView(sealed, 0, 2, false)).not.toBe(sealed);
    expect(arrayView(sealed, 0, 1, true)).toEqual([1]);
  });
});

describe('isArrayView', () => {
  it('recognises views, and only views', async () => {
    const { isArrayView } = await import('../../src/internal/array-view');
    expect(isArrayView(arrayView([1, 2, 3], 0, 2))).toBe(true);
    expect(isArrayView([1, 2])).toBe(false);
    expect(isArrayView(Object.freeze([1]))).toBe(false);
    expect(isArrayView(null)).toBe(false);
  });
});
