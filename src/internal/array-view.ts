/**
 * Immutable array views over an append-only buffer.
 *
 * A log slice appends into one growing buffer; each committed version is a window
 * `[start, end)` of it. Handing readers `buffer.slice(start, end)` would copy the whole log
 * on every change (the quadratic cost every peer store pays). Instead a reader gets a
 * read-only `Proxy` over the window: O(1) to make, `Array.isArray` is true, every array
 * method works, and writes throw a `TypeError` as on a frozen array. Indices below `end`
 * are never written again (the storage copies before it would), so a view never changes.
 *
 * The handler is shared by every view (a per-view handler with closures costs ~20x more to
 * make); each view's window sits on its target under a private symbol.
 */

import { codedMessage } from './coded-message';
import { DEV } from './dev';
const WINDOW = Symbol('rxslice.view');
const INSPECT = Symbol.for('nodejs.util.inspect.custom');

interface ViewWindow {
  readonly buffer: readonly unknown[];
  readonly start: number;
  readonly length: number;
}

type Target = unknown[] & { [WINDOW]: ViewWindow };

const readOnly = (): never => {
  throw new TypeError(!DEV ? codedMessage('E50', 'read-only') : 'Slice items are immutable: return a SliceOp from a reducer instead of mutating the array.');
};

function canonicalIndex(key: string): number {
  const c = key.charCodeAt(0);
  if (c < 48 || c > 57) return -1;
  const n = Number(key);
  return Number.isInteger(n) && String(n) === key ? n : -1;
}

const windowOf = (view: unknown): ViewWindow => (view as Target)[WINDOW];

function at(this: readonly unknown[], index: number): unknown {
  const w = windowOf(this);
  const i = index < 0 ? w.length + index : index;
  return i >= 0 && i < w.length ? w.buffer[w.start + i] : undefined;
}

function slice(this: readonly unknown[], from?: number, to?: number): unknown[] {
  const w = windowOf(this);
  const n = w.length;
  const s = from === undefined ? 0 : from < 0 ? Math.max(n + from, 0) : Math.min(from, n);
  const e = to === undefined ? n : to < 0 ? Math.max(n + to, 0) : Math.min(to, n);
  return w.buffer.slice(w.start + s, w.start + Math.max(s, e));
}

function* values(this: readonly unknown[]): IterableIterator<unknown> {
  const w = windowOf(this);
  for (let i = w.start, end = w.start + w.length; i < end; i++) yield w.buffer[i];
}

/** Node's `util.inspect` looks at a proxy's target, not through its traps: print the items. */
function inspect(this: readonly unknown[], _depth: number, options: object, format: (v: unknown, o: object) => string): string {
  return format(Array.from(this), options);
}

const handler: ProxyHandler<Target> = {
  get(t, key, receiver) {
    const w = t[WINDOW];
    if (typeof key === 'string') {
      if (key === 'length') return w.length;
      const i = canonicalIndex(key);
      if (i >= 0) return i < w.length ? w.buffer[w.start + i] : undefined;
      if (key === 'at') return at;
      if (key === 'slice') return slice;
      if (key === 'constructor') return Array;
    } else if (key === Symbol.iterator) {
      return values;
    }
    return Reflect.get(t, key, receiver);
  },
  has(t, key) {
    if (typeof key === 'string') {
      const i = canonicalIndex(key);
      if (i >= 0) return i < t[WINDOW].length;
    }
    return Reflect.has(t, key);
  },
  ownKeys(t) {
    const keys: string[] = [];
    for (let i = 0; i < t[WINDOW].length; i++) keys.push(String(i));
    keys.push('length');
    return keys;
  },
  getOwnPropertyDescriptor(t, key) {
    const w = t[WINDOW];
    if (key === 'length') return { value: w.length, writable: true, enumerable: false, configurable: false };
    if (typeof key === 'string') {
      const i = canonicalIndex(key);
      if (i >= 0 && i < w.length) return { value: w.buffer[w.start + i], writable: false, enumerable: true, configurable: true };
      return undefined;
    }
    return Reflect.getOwnPropertyDescriptor(t, key);
  },
  set: readOnly,
  defineProperty: readOnly,
  deleteProperty: readOnly,
  setPrototypeOf: readOnly,
};

/**
 * Returns a read-only array holding `buffer[start..end)`. When the window is the whole of a
 * `sealed` buffer (one that is never written again), the buffer itself is returned (no proxy).
 */
export function arrayView<T>(buffer: readonly T[], start: number, end: number, sealed = false): readonly T[] {
  if (sealed && start === 0 && end === buffer.length) return buffer;
  const target = [] as unknown as Target;
  target[WINDOW] = { buffer, start, length: end - start };
  (target as unknown as Record<symbol, unknown>)[INSPECT] = inspect;
  return new Proxy(target, handler) as unknown as readonly T[];
}

/** True when `value` is a view made by {@link arrayView}. */
export const isArrayView = (value: unknown): boolean =>
  Array.isArray(value) && (value as unknown as Partial<Target>)[WINDOW] !== undefined;
