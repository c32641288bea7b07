import { isArrayView } from '../internal/array-view';

/**
 * @internal Deep-freezes a computed value in place, as the session freezes slice items, and
 * returns it. Walks arrays and the own enumerable properties of objects iteratively (no stack
 * overflow on deep values); skips what is frozen already (slice items, a source's value), so
 * the cost is the value's new nodes only, and the read-only array views that slices hand out
 * (immutable already; freezing a view would throw). Objects with internal slots (`Map`, `Set`,
 * `Date`) get their own properties frozen, not their contents.
 */
export function freezeValue<T>(value: T): T {
  // A primitive (the common computed value: a count, a sum, a flag) has nothing to freeze.
  if (value === null || typeof value !== 'object' || Object.isFrozen(value)) return value;
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const v = stack.pop();
    if (v === null || typeof v !== 'object' || Object.isFrozen(v) || isArrayView(v)) continue;
    Object.freeze(v);
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) stack.push(v[i]);
    } else {
      for (const key of Object.keys(v)) stack.push((v as Record<string, unknown>)[key]);
    }
  }
  return value;
}
