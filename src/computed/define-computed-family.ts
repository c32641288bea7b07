import type { CoreStore } from '../session/session-types';
import { ATTACH, NOT_A_SLICE } from '../session/internals';
import { ComputedReadOnlyError, InvalidComputedError } from './computed-errors';
import { computedFamily, type ComputedFamily } from './computed-family';
import { checkComputedDeclaration } from './computed-declaration';
import type { ComputedOptions, ComputedSource, SourceValues } from './define-computed';

/** Default number of members a computed family keeps per session. */
export const DEFAULT_FAMILY_CACHE_SIZE = 100;

/** The cache key of a family argument. */
export type FamilyKey = string | number | boolean | bigint | null | undefined;

/** Options of {@link defineComputedFamily}. */
export interface ComputedFamilyOptions<TArg, TValue> extends ComputedOptions<TValue> {
  /** How many members a session keeps (least recently used go first). Default {@link DEFAULT_FAMILY_CACHE_SIZE} (100). */
  readonly cacheSize?: number;
  /**
   * The cache key of an argument: two arguments with the same key share a member. Default: the
   * argument itself when it is a primitive, `JSON.stringify(arg)` otherwise (so property order counts).
   */
  readonly key?: (arg: TArg) => FamilyKey;
}

/** A parametric computed slice declaration made by {@link defineComputedFamily}. */
export interface ComputedFamilyDef<TName extends string = string, TArg = unknown, TValue = unknown> {
  readonly kind: 'computedFamily';
  readonly name: TName;
  readonly sources: readonly ComputedSource[];
  /**
   * Given a member's argument, returns that member's `project`: a function of the sources' values
   * (one argument per source, in `sources` order) returning the member's value. Pure; must not
   * dispatch.
   */
  readonly project: (arg: TArg) => (...values: any[]) => TValue;
  /** When a member's new value counts as unchanged ({@link ComputedOptions.equals}; `Object.is` when not given). */
  readonly equals: (previous: TValue, next: TValue) => boolean;
  /** How many members a session keeps, least recently used evicted first ({@link ComputedFamilyOptions.cacheSize}). */
  readonly cacheSize: number;
  /** The cache key of an argument: arguments with the same key share a member ({@link ComputedFamilyOptions.key}). */
  readonly key: (arg: TArg) => FamilyKey;
  /** Phantom fields carrying the argument and value types. Always `undefined` at run time. */
  readonly Arg: TArg;
  readonly Value: TValue;
  /** @internal Opens the family in a session: `session.computed(def)`. */
  readonly [ATTACH]: (session: CoreStore) => ComputedFamily<TArg, TValue>;
}

const defaultKey = (arg: unknown): FamilyKey =>
  arg === null || (typeof arg !== 'object' && typeof arg !== 'function' && typeof arg !== 'symbol') ? (arg as FamilyKey) : JSON.stringify(arg);

/**
 * Declares a family of computed slices keyed by an argument ("the calls of tool X"): each
 * argument gets its own memoized, glitch-free computed slice over the same sources.
 *
 * @remarks A session keeps at most `cacheSize` members (default 100), least recently used
 * first out (`get` counts as a use). A member dropped from the cache while `value$` is
 * subscribed stays alive for its subscribers until they unsubscribe; asking for its argument
 * again makes a new member (and calls `project` again).
 * @param project - `(arg) => (...sourceValues) => value`: the outer call picks the member, the inner one is its pure project.
 * @throws {@link InvalidComputedError} when the name is empty, a source is not a slice or computed
 * slice, or `cacheSize` is not an integer >= 1.
 * @example
 * ```ts
 * const CallsOf = defineComputedFamily('callsOf', [Calls], (tool: string) => (calls) => calls.filter((c) => c.tool === tool));
 * const callsOf = computedFamily(session, CallsOf);
 * callsOf('search').value$.subscribe((calls) => console.log(calls.length)); // Logs: 0, then on each change
 * callsOf.get('search') === callsOf('search');                              // true (cached)
 * ```
 */
export function defineComputedFamily<const TName extends string, const TSources extends readonly ComputedSource[], TArg, TValue>(
  name: TName,
  sources: TSources,
  project: (arg: TArg) => (...values: SourceValues<TSources>) => TValue,
  options: ComputedFamilyOptions<TArg, TValue> = {},
): ComputedFamilyDef<TName, TArg, TValue> {
  checkComputedDeclaration(name, sources);
  const cacheSize = options.cacheSize ?? DEFAULT_FAMILY_CACHE_SIZE;
  if (!Number.isSafeInteger(cacheSize) || cacheSize < 1) {
    throw new InvalidComputedError(name, `cacheSize must be an integer >= 1, got ${String(cacheSize)}.`);
  }
  const def: ComputedFamilyDef<TName, TArg, TValue> = Object.freeze({
    kind: 'computedFamily',
    name,
    sources: Object.freeze([...sources]),
    project: project as (arg: TArg) => (...values: any[]) => TValue,
    equals: options.equals ?? Object.is,
    cacheSize,
    key: options.key ?? defaultKey,
    Arg: undefined as TArg,
    Value: undefined as TValue,
    [NOT_A_SLICE]: (operation: string) => new ComputedReadOnlyError(name, operation),
    [ATTACH]: (session: CoreStore) => computedFamily(session, def),
  });
  return def;
}
