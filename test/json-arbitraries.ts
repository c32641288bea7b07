// fast-check generators of JSON data as rxslice means it.
import fc from 'fast-check';

/** True when `value` holds an own `__proto__` key at any depth (as `JSON.parse('{"__proto__":1}')` makes one). */
export function hasProtoKey(value: unknown): boolean {
  if (value === null || typeof value !== 'object') return false;
  if (!Array.isArray(value) && Object.hasOwn(value, '__proto__')) return true;
  return Object.values(value).some(hasProtoKey);
}

/**
 * Plain JSON data: `fc.jsonValue()` without own `__proto__` keys. fast-check's JSON values may
 * hold one (its keys are any strings), and rxslice refuses such a key on purpose: it is not
 * data, and it changes the prototype of an object it is copied into. A property about plain
 * JSON data draws from this; the refusal has a property of its own ({@link jsonWithProtoKey}).
 */
export const plainJsonValue = (constraints?: Parameters<typeof fc.jsonValue>[0]): fc.Arbitrary<fc.JsonValue> => fc.jsonValue(constraints).filter((v) => !hasProtoKey(v));

/** Plain JSON data with one own `__proto__` key placed somewhere inside (in an object, in an array, at any depth up to 3). */
export const jsonWithProtoKey: fc.Arbitrary<unknown> = fc
  .tuple(plainJsonValue({ maxDepth: 2 }), fc.dictionary(fc.string({ maxLength: 3 }).filter((k) => k !== '__proto__'), plainJsonValue({ maxDepth: 1 }), { maxKeys: 3 }), fc.array(fc.oneof(fc.constant(0), fc.string({ maxLength: 3 }).filter((k) => k !== '__proto__')), { maxLength: 3 }))
  .map(([value, siblings, path]) => {
    let v: unknown = Object.assign(JSON.parse(`{"__proto__":${JSON.stringify(value)}}`) as object, siblings);
    for (const step of path) v = typeof step === 'number' ? [v] : { [step]: v };
    return v;
  });
