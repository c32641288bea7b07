/**
 * @internal `data` with the shared `accessors` added: a public object made of a literal of data
 * properties plus getters defined once per module.
 *
 * Why: V8 builds an object literal that declares a getter in dictionary mode, where every
 * property read (a `session.dispatch` on every call included) is a hash lookup; so is an
 * object that gets properties added after it was built. A literal of data properties stays
 * fast, and accessors added to it with `Object.defineProperties` from one shared descriptor
 * map keep it fast and give every object made this way the same hidden class. The getters
 * read their state through a symbol-keyed data property of the literal.
 * `test/session/fast-objects.test.ts` checks the objects a session hands out.
 */
export const withAccessors = <T>(data: object, accessors: PropertyDescriptorMap): T => Object.defineProperties(data, accessors) as T;
