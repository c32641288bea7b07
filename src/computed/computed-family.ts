import type { CoreStore } from '../session/session-types';
import { handleOf, type ComputedHandle } from './computed';
import { graphOf, type ComputedGraph } from './computed-graph';
import type { ComputedNode } from './computed-node';
import { defineComputed } from './define-computed';
import type { ComputedFamilyDef, FamilyKey } from './define-computed-family';
import { LruCache } from './lru-cache';

/** A session's accessor for a computed family: call it (or `get`) with an argument to get that member's handle. */
export interface ComputedFamily<TArg, TValue> {
  (arg: TArg): ComputedHandle<TValue>;
  /** The member for `arg`, made on first use (lazy: nothing is computed until read), marked most recently used. */
  get(arg: TArg): ComputedHandle<TValue>;
  /** True when the member for `arg` is cached (does not count as a use). */
  has(arg: TArg): boolean;
  /** Number of cached members (at most `cacheSize`). */
  readonly size: number;
  readonly cacheSize: number;
}

interface Member<TValue> {
  readonly node: ComputedNode<TValue>;
  readonly handle: ComputedHandle<TValue>;
}

function makeFamily<TArg, TValue>(graph: ComputedGraph, def: ComputedFamilyDef<string, TArg, TValue>): ComputedFamily<TArg, TValue> {
  const cache = new LruCache<FamilyKey, Member<TValue>>(def.cacheSize, (member) => graph.forget(member.node));
  const get = (arg: TArg): ComputedHandle<TValue> => {
    const key = def.key(arg);
    const hit = cache.get(key);
    if (hit !== undefined) return hit.handle;
    const memberDef = defineComputed(`${def.name}(${String(key)})`, def.sources, def.project(arg), { equals: def.equals });
    const node = graph.node(memberDef);
    const member = { node, handle: handleOf(graph, node) };
    cache.set(key, member);
    return member.handle;
  };
  const family = ((arg: TArg) => get(arg)) as ComputedFamily<TArg, TValue>;
  return Object.defineProperties(family, {
    get: { value: get },
    has: { value: (arg: TArg) => cache.has(def.key(arg)) },
    size: { get: () => cache.size },
    cacheSize: { value: def.cacheSize },
  });
}

/**
 * Reads a computed family in a session: returns its accessor (the same one on every call).
 * Each argument's member is a computed slice with the guarantees of {@link computed}
 * (lazy, memoized, glitch-free); the session keeps at most `def.cacheSize` of them (LRU).
 *
 * @throws {@link SliceNotRegisteredError} from `get` when a source slice is not part of the session.
 * @example
 * ```ts
 * const callsOf = computedFamily(session, CallsOf);
 * callsOf('search').latest(); // the calls of tool "search"
 * callsOf.size;               // 1
 * ```
 */
export function computedFamily<TArg, TValue>(session: CoreStore, def: ComputedFamilyDef<string, TArg, TValue>): ComputedFamily<TArg, TValue> {
  const graph = graphOf(session);
  let family = graph.extensions.get(def) as ComputedFamily<TArg, TValue> | undefined;
  if (family === undefined) {
    family = makeFamily(graph, def);
    graph.extensions.set(def, family);
  }
  return family;
}
