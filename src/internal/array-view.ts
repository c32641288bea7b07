/**
 * Immutable array views over an append-only buffer.
 *
 * A log slice appends into one growing buffer; each committed version is a window
 * `[start, end)` of it. Handing readers `buffer.slice(start, end)` would copy the whole log
 * on every change (the quadratic cost every peer store pays). Instead a reader gets a
 * read-only `Proxy` over the window: O(1) to make, `Array.isArray` is true, every array
 * method works, and writes throw a `TypeError` as on a frozen array. Indices below `end`
 * are never written again (the storage copies before it would), so a view never changes.
 */

/**
 * The proxies' target class: a real array (so `Array.isArray` holds) whose species is plain
 * `Array` (so `map`/`filter` return plain arrays) and which tells Node's `util.inspect` (which
 * looks at a proxy's target, not through its traps) to print the view's items.
 */
class ViewArray<T> extends Array<T> {
  static override get [Symbol.species](): ArrayConstructor {
    return Array;
  }
}
Object.defineProperty(ViewArray.prototype, Symbol.for('nodejs.util.inspect.custom'), {
  value(this: readonly unknown[], _depth: number, options: object, inspect: (v: unknown, o: object) => string) {
    return inspect(Array.from(this), options);
  },
});

const readOnly = (): never => {
  throw new TypeError('Slice items are immutable: return a SliceOp from a reducer instead of mutating the array.');
};

function canonicalIndex(key: string): number {
  const c = key.charCodeAt(0);
  if (c < 48 || c > 57) return -1;
  const n = Number(key);
  return Number.isInteger(n) && String(n) === key ? n : -1;
}

/**
 * Returns a read-only array holding `buffer[start..end)`. When the window is the whole of a
 * `sealed` buffer (one that is never written again), the buffer itself is returned (no proxy).
 */
export function arrayView<T>(buffer: readonly T[], start: number, end: number, sealed = false): readonly T[] {
  if (sealed && start === 0 && end === buffer.length) return buffer;
  const length = end - start;
  const target: T[] = new ViewArray<T>();
  const handler: ProxyHandler<T[]> = {
    get(t, key, receiver) {
      if (typeof key === 'string') {
        if (key === 'length') return length;
        const i = canonicalIndex(key);
        if (i >= 0) return i < length ? buffer[start + i] : undefined;
        if (key === 'at') return at;
        if (key === 'slice') return slice;
      } else if (key === Symbol.iterator) {
        return iterator;
      }
      return Reflect.get(t, key, receiver);
    },
    has(t, key) {
      if (typeof key === 'string') {
        const i = canonicalIndex(key);
        if (i >= 0) return i < length;
      }
      return Reflect.has(t, key);
    },
    ownKeys() {
      const keys: string[] = [];
      for (let i = 0; i < length; i++) keys.push(String(i));
      keys.push('length');
      return keys;
    },
    getOwnPropertyDescriptor(t, key) {
      if (key === 'length') return { value: length, writable: true, enumerable: false, configurable: false };
      if (typeof key === 'string') {
        const i = canonicalIndex(key);
        if (i >= 0 && i < length) {
          return { value: buffer[start + i], writable: false, enumerable: true, configurable: true };
        }
      }
      return Reflect.getOwnPropertyDescriptor(t, key);
    },
    set: readOnly,
    defineProperty: readOnly,
    deleteProperty: readOnly,
    setPrototypeOf: readOnly,
  };
  function at(index: number): T | undefined {
    const i = index < 0 ? length + index : index;
    return i >= 0 && i < length ? buffer[start + i] : undefined;
  }
  function slice(from?: number, to?: number): T[] {
    const s = from === undefined ? 0 : from < 0 ? Math.max(length + from, 0) : Math.min(from, length);
    const e = to === undefined ? length : to < 0 ? Math.max(length + to, 0) : Math.min(to, length);
    return buffer.slice(start + s, start + Math.max(s, e));
  }
  function* iterator(): IterableIterator<T> {
    for (let i = start; i < end; i++) yield buffer[i] as T;
  }
  return new Proxy(target, handler);
}

/** True when `value` is a view made by {@link arrayView} (its prototype is the views' own). */
export const isArrayView = (value: unknown): boolean =>
  typeof value === 'object' && value !== null && Object.getPrototypeOf(value) === ViewArray.prototype;
