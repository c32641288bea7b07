/**
 * Deepest nesting an item may have (the item itself is at depth 0). Deep enough for any
 * realistic document, shallow enough that `JSON.stringify`, zod and structured cloning (all
 * recursive) never run out of stack on an item the session accepted.
 */
export const MAX_ITEM_DEPTH = 512;

/** Why a value is not plain JSON data, and where (`path` from the checked value). */
export interface JsonProblem {
  readonly path: readonly (string | number)[];
  readonly message: string;
}

const objectProto = Object.prototype;
const arrayProto = Array.prototype;

/** The kind of a non-JSON value, for messages. */
function describe(value: unknown): string {
  if (typeof value === 'bigint') return 'a BigInt';
  if (typeof value === 'function') return 'a function';
  if (typeof value === 'symbol') return 'a symbol';
  if (value === undefined) return 'undefined';
  if (typeof value === 'number') return String(value);
  const proto = Object.getPrototypeOf(value) as { constructor?: { name?: unknown } } | null;
  const name = proto?.constructor?.name;
  return `an instance of ${typeof name === 'string' && name !== '' ? name : 'a class'}`;
}

/**
 * Checks that `root` is plain JSON data whose `JSON.parse(JSON.stringify(root))` equals it:
 * `null`, booleans, strings, finite numbers, dense arrays of such values and plain objects
 * (prototype `Object.prototype` or `null`) of such values, acyclic, at most `maxDepth` deep.
 * Object properties whose value is `undefined` are allowed (JSON drops them and so does a
 * schema's `optional()`); an own `__proto__` key is not (it is not data, and it changes the
 * prototype of an object built by assignment).
 *
 * Data that passes is confirmed by {@link isJsonDataFast} (recursion bounded by depth and by a
 * node budget, no allocation); anything else goes to {@link jsonProblemWalk}, which finds the problem:
 * iterative (no recursion, whatever the depth) and linear in the number of nodes for trees:
 * an object reached again through a shared (acyclic) reference is skipped, unless it is
 * reached deeper than before (then its depth there is checked too). Reads properties with `[[Get]]`
 * (a value the pre-check doubts is read again by the walk), so a throwing getter or Proxy trap
 * throws out of here: callers wrap it in their typed error.
 *
 * @returns the first problem found, or `undefined` when `root` is JSON data.
 */
export function jsonProblem(root: unknown, maxDepth: number = MAX_ITEM_DEPTH): JsonProblem | undefined {
  return isJsonDataFast(root, maxDepth) ? undefined : jsonProblemWalk(root, maxDepth);
}

/** Nodes the recursive pre-check visits before it gives up (shared references are visited once per path). */
const FAST_NODE_BUDGET = 10_000;
/** Deepest `maxDepth` the recursive pre-check takes on (deeper limits go straight to the walk). */
const FAST_MAX_DEPTH = 1_024;
let fastBudget = 0;

/**
 * @internal The common case of {@link jsonProblem}, answered without allocating: true when
 * `root` is certainly plain JSON data within `maxDepth`. A plain recursive descent (an object
 * reached twice is walked twice) that gives up, returning false, at the first doubt: a
 * value that is not data, an object deeper than `maxDepth` (a cycle ends there too), or more
 * than {@link FAST_NODE_BUDGET} objects visited (heavy sharing cannot make it exponential).
 * False is not a verdict: {@link jsonProblemWalk} then finds the problem, if any, and names it.
 * Never throws: a throwing getter or a stack overflow is a doubt too.
 */
export function isJsonDataFast(root: unknown, maxDepth: number = MAX_ITEM_DEPTH): boolean {
  if (maxDepth > FAST_MAX_DEPTH) return false;
  fastBudget = FAST_NODE_BUDGET;
  try {
    return fastValue(root, 0, maxDepth);
  } catch {
    // A getter or trap that throws (the walk reads it again and reports it), or a call stack
    // already too deep for the recursion (the walk needs none).
    return false;
  }
}

function fastValue(value: unknown, depth: number, maxDepth: number): boolean {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return true;
    case 'number':
      return Number.isFinite(value);
    case 'object': {
      if (value === null) return true;
      if (depth > maxDepth || --fastBudget < 0) return false;
      if (Array.isArray(value)) {
        if (Object.getPrototypeOf(value) !== arrayProto) return false;
        for (let i = 0; i < value.length; i++) {
          if (!(i in value)) return false;
          const child: unknown = value[i];
          if (child === undefined || !fastValue(child, depth + 1, maxDepth)) return false;
        }
        return true;
      }
      if (!isPlainObject(value)) return false;
      const names = Object.keys(value);
      for (let i = 0; i < names.length; i++) {
        const name = names[i] as string;
        if (name === '__proto__') return false;
        const child: unknown = (value as Record<string, unknown>)[name];
        if (child !== undefined && !fastValue(child, depth + 1, maxDepth)) return false;
      }
      return true;
    }
    default:
      return false;
  }
}

/**
 * @internal {@link jsonProblem} without its recursive pre-check: the iterative walk that
 * finds and names the first problem.
 */
export function jsonProblemWalk(root: unknown, maxDepth: number = MAX_ITEM_DEPTH): JsonProblem | undefined {
  const rootProblem = leafProblem(root);
  if (rootProblem !== undefined) return { path: [], message: rootProblem };
  if (root === null || typeof root !== 'object') return undefined;
  // Depth-first with explicit stacks. An exit marker (depth -1) closes an object, so `open`
  // holds exactly the objects on the current path (a child already open is a cycle) and `path`
  // their keys. `done` keeps the depth each closed object was checked at: a shared object
  // reached again deeper is checked again (its depth there matters), else skipped.
  const nodes: object[] = [root];
  const depths: number[] = [0];
  const keys: (string | number)[] = [''];
  const path: (string | number)[] = [];
  const open = new Set<object>();
  const done = new Map<object, number>();
  while (nodes.length > 0) {
    const node = nodes.pop() as object;
    const depth = depths.pop() as number;
    const key = keys.pop() as string | number;
    if (depth < 0) {
      open.delete(node);
      if (node !== root) path.pop();
      continue;
    }
    if (open.has(node)) return { path: [...path, key], message: 'it refers to an object that contains it (a cycle)' };
    const checkedAt = done.get(node);
    if (checkedAt !== undefined && checkedAt <= depth) continue;
    if (depth > maxDepth) return { path: [...path, key], message: `it nests deeper than ${maxDepth} levels` };
    if (node !== root) path.push(key);
    done.set(node, depth);
    const problem = pushChildren(node, depth);
    if (problem !== undefined) return problem;
  }
  return undefined;

  /** Opens `node` (pushes its exit marker, then its object children); returns a problem with a child, if any. */
  function pushChildren(node: object, depth: number): JsonProblem | undefined {
    if (Array.isArray(node) ? Object.getPrototypeOf(node) !== arrayProto : !isPlainObject(node)) {
      return { path: [...path], message: `${describe(node)} is not a plain object or array` };
    }
    open.add(node);
    nodes.push(node);
    depths.push(-1);
    keys.push('');
    if (Array.isArray(node)) {
      for (let i = node.length - 1; i >= 0; i--) {
        if (!(i in node)) return { path: [...path, i], message: 'the array has a hole here (JSON writes null)' };
        const child: unknown = node[i];
        if (child === undefined) return { path: [...path, i], message: 'undefined in an array (JSON writes null)' };
        const problem = leafProblem(child);
        if (problem !== undefined) return { path: [...path, i], message: problem };
        if (child !== null && typeof child === 'object') {
          nodes.push(child);
          depths.push(depth + 1);
          keys.push(i);
        }
      }
    } else {
      const names = Object.keys(node);
      for (let i = names.length - 1; i >= 0; i--) {
        const name = names[i] as string;
        if (name === '__proto__') return { path: [...path, name], message: 'an own "__proto__" key is not data' };
        const child: unknown = (node as Record<string, unknown>)[name];
        if (child === undefined) continue;
        const problem = leafProblem(child);
        if (problem !== undefined) return { path: [...path, name], message: problem };
        if (child !== null && typeof child === 'object') {
          nodes.push(child);
          depths.push(depth + 1);
          keys.push(name);
        }
      }
    }
    return undefined;
  }
}

function isPlainObject(value: object): boolean {
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === objectProto || proto === null;
}

/** Why a non-object value is not JSON data, or `undefined` (objects are checked by the walk). */
function leafProblem(value: unknown): string | undefined {
  switch (typeof value) {
    case 'string':
    case 'boolean':
    case 'object':
      return undefined;
    case 'number':
      return Number.isFinite(value) ? undefined : `${describe(value)} is not a JSON number`;
    default:
      return `${describe(value)} is not JSON data`;
  }
}

/** A {@link JsonProblem} as a validation issue (code `not_json`; long paths are shortened). */
export function jsonIssue(problem: JsonProblem): { code: string; path: (string | number)[]; message: string } {
  const path = problem.path.length > 16 ? [...problem.path.slice(0, 8), `…(${problem.path.length - 16} more)…`, ...problem.path.slice(-8)] : [...problem.path];
  return { code: 'not_json', path, message: `${problem.message}; slice items must be plain JSON data` };
}

/** Verdicts of {@link schemaGivesJson}, per schema object (decided once). */
const schemaVerdicts = new WeakMap<object, boolean>();

/** A zod (v4) schema's definition, as far as {@link schemaGivesJson} reads it. */
interface ZodDefLike {
  readonly type?: unknown;
  readonly shape?: Record<string, unknown>;
  readonly catchall?: unknown;
  readonly element?: unknown;
  readonly innerType?: unknown;
  readonly options?: readonly unknown[];
  readonly items?: readonly unknown[];
  readonly rest?: unknown;
  readonly values?: readonly unknown[];
  readonly entries?: Record<string, unknown>;
  readonly defaultValue?: unknown;
}

const defOf = (schema: unknown): ZodDefLike | undefined => {
  const internals = (schema as { _zod?: { def?: ZodDefLike } } | null | undefined)?._zod;
  return internals?.def;
};

const isJsonLeaf = (v: unknown): boolean =>
  typeof v === 'string' || typeof v === 'boolean' || v === null || (typeof v === 'number' && Number.isFinite(v));

/**
 * True when every value `schema` outputs on success is certainly plain JSON data, as
 * {@link jsonProblem} defines it (so the session need not walk its output): decided from the
 * schema's structure once (cached per schema object), conservatively. Accepted: `string`,
 * `number` (zod 4 rejects NaN and ±Infinity), `boolean`, `null`, `literal`/`enum` of JSON
 * leaves, `object` in strip or strict mode (a new plain object with only its declared keys, none
 * named `__proto__`), `array` and `tuple` (new arrays, no rest), `optional` (as an object
 * property only: `undefined` is not an item or an array element), `nullable`,
 * `readonly`, `default` with a JSON-data default, and `union` of accepted schemas, nested at
 * most {@link MAX_ITEM_DEPTH} deep. Anything else — transforms and pipes, `any`/`unknown`,
 * records, intersections, `lazy` (recursion), `catch`, dates, bigints, custom schemas, or a
 * schema from another library — is answered false (the output is walked as before).
 *
 * @example
 * ```ts
 * schemaGivesJson(z.object({ id: z.string(), n: z.number() })); // true
 * schemaGivesJson(z.object({ at: z.date() }));                  // false
 * ```
 */
export function schemaGivesJson(schema: unknown): boolean {
  if (schema === null || typeof schema !== 'object') return false;
  const known = schemaVerdicts.get(schema);
  if (known !== undefined) return known;
  let verdict: boolean;
  try {
    verdict = givesJson(schema, 0);
  } catch {
    verdict = false;
  }
  schemaVerdicts.set(schema, verdict);
  return verdict;
}

/** `property`: the schema is an object property's (where `undefined` is allowed: JSON drops it). */
function givesJson(schema: unknown, depth: number, property = false): boolean {
  if (depth > MAX_ITEM_DEPTH) return false;
  const def = defOf(schema);
  if (def === undefined) return false;
  switch (def.type) {
    case 'string':
    case 'number':
    case 'boolean':
    case 'null':
      return true;
    case 'literal':
      return Array.isArray(def.values) && def.values.length > 0 && def.values.every(isJsonLeaf);
    case 'enum':
      return def.entries !== undefined && Object.values(def.entries).every((v) => typeof v === 'string' || (typeof v === 'number' && Number.isFinite(v)));
    case 'object': {
      const shape = def.shape;
      if (shape === undefined || Object.getPrototypeOf(shape) !== Object.prototype && Object.getPrototypeOf(shape) !== null) return false;
      // catchall: absent (strip) or `never` (strict); passthrough/loose keep unknown input keys.
      if (def.catchall !== undefined && defOf(def.catchall)?.type !== 'never') return false;
      for (const key of Object.keys(shape)) {
        if (key === '__proto__' || !givesJson(shape[key], depth + 1, true)) return false;
      }
      return true;
    }
    case 'array':
      return givesJson(def.element, depth + 1);
    case 'tuple':
      return def.rest == null && Array.isArray(def.items) && def.items.every((item) => givesJson(item, depth + 1));
    case 'optional':
      // `undefined` is data only as an object property's value (not an item, not in an array).
      return property && givesJson(def.innerType, depth, true);
    case 'nullable':
    case 'readonly':
      return givesJson(def.innerType, depth, property);
    case 'default': {
      const value: unknown = def.defaultValue;
      return givesJson(def.innerType, depth, property) && value !== undefined && jsonProblem(value) === undefined;
    }
    case 'union':
      return Array.isArray(def.options) && def.options.length > 0 && def.options.every((option) => givesJson(option, depth, property));
    default:
      return false;
  }
}
