import type { z } from 'zod';
import { formatIssues, RxSliceError, toIssues } from '../internal/errors';
import { jsonProblem } from '../internal/json-data';
import { deepFreeze } from '../internal/freeze';
import type { Event } from '../events/event';
import { on, type ReducerEntry, type ReducerEvent, type ReducerMiddleware, type SliceDef, type SliceMigrations, type SlicePolicy } from './reducer';
import { migrationConfigProblem } from './migrations';
import { onLatest, produceLatest } from './latest-reducers';
import type { ReducerBuilder } from './reducer-builder';
import type { EvictionPolicy, SliceWindowPolicy } from './window-contract';
import { codedMessage } from '../internal/coded-message';
import { DEV } from '../internal/dev';
import { clip, quote } from '../internal/quote';

/** Options of {@link defineSlice}. */
export interface SliceConfig<TItem, TReducers extends readonly ReducerEntry<TItem, Event>[] = readonly ReducerEntry<TItem, Event>[]> {
  /** `'state'` (working state, restored by rollback and snapshots) or `'log'` (append-only history). */
  readonly policy: SlicePolicy;
  /** zod schema of one item; validates seeds, restores, JSON snapshots and (in dev) reducer output. */
  readonly schema?: z.ZodType<TItem>;
  /** Items the slice starts with (and returns to on `reset()`). Default: none. */
  readonly initial?: readonly TItem[];
  /**
   * The slice's reducers, declared with the builder's `on`, `onLatest` and `produceLatest`,
   * which already know the item type: `reducers: ({ on }) => [on(Added, (view, e) => append(e.payload))]`.
   */
  readonly reducers?: (builder: ReducerBuilder<NoInfer<TItem>>) => TReducers;
  /** Reducer middleware for this slice only, run inside the session's global ones. */
  readonly middleware?: readonly ReducerMiddleware[];
  /** A window bounding the slice (see `SliceWindow`). Default: unbounded. */
  readonly window?: SliceWindowPolicy<NoInfer<TItem>>;
  /**
   * The eviction policy of `window` (see `EvictionPolicy`), overriding the one the window was
   * made with: `{ window: SliceWindow.count(1000), eviction: EvictionPolicy.sampling({ seed: 7 }) }`.
   * Needs a window that makes an eviction choice (`count`, `predicate`, or a composite of them).
   */
  readonly eviction?: EvictionPolicy<NoInfer<TItem>>;
  /**
   * Schema version of the items (integer ≥ 1, default 1). Stored records and snapshot files
   * carry it; reading data of an older version runs `migrations`, then validates with `schema`.
   * Raise it whenever the item shape changes incompatibly, and add the step from the old version.
   */
  readonly version?: number;
  /**
   * Steps upgrading stored items: key `k` turns an item of version `k` into one of version `k + 1`.
   * A slice at `version: 3` needs `{ 1: (item) => ..., 2: (item) => ... }` (see `migrateItems`).
   */
  readonly migrations?: SliceMigrations;
}

const reducerBuilder: ReducerBuilder<unknown> = { on, onLatest, produceLatest };

/** Names that are not data in a JavaScript object (they reach or replace its prototype). */
const UNSAFE_SEGMENTS: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);

/**
 * @internal Why `name` cannot name a slice, or `undefined`. A name is one or more `/`-separated segments
 * (machines name theirs `machine/<name>`); a segment is non-empty, is not `.`, `..`,
 * `__proto__`, `constructor` or `prototype`, and holds no `\` and no control character (NUL
 * included). So a name is safe as an object key, and a storage backend that keeps one file per
 * slice can map it to a relative path under its own directory (each segment a file or directory
 * name; a backend that wants one flat file per slice percent-encodes the name, `/` included).
 */
export function sliceNameProblem(name: unknown): string | undefined {
  if (typeof name !== 'string' || name.length === 0) return !DEV ? codedMessage('E20', 'empty') : 'the name must be a non-empty string.';
  if (name.startsWith('rxslice.')) return !DEV ? codedMessage('E21', 'rxslice.') : 'names starting with "rxslice." are reserved for the library.';
  // eslint-disable-next-line no-control-regex
  if (/[\\\u0000-\u001f\u007f]/.test(name)) return !DEV ? codedMessage('E22', 'control character') : 'the name must not contain "\\" or control characters (NUL, tab, newline...).';
  for (const segment of name.split('/')) {
    if (segment === '') return !DEV ? codedMessage('E23', 'empty segment') : 'the name must not start or end with "/" or contain "//".';
    if (segment === '.' || segment === '..') return !DEV ? codedMessage('E24', quote(segment)) : `the name must not contain a ${quote(segment)} segment.`;
    if (UNSAFE_SEGMENTS.has(segment)) return !DEV ? codedMessage('E25', quote(segment)) : `${quote(segment)} is not a safe slice name (it is not data in a JavaScript object). Pick another name.`;
  }
  return undefined;
}

/** Thrown when a slice declaration is malformed (empty name, reserved name, bad policy). */
export class InvalidSliceDefinitionError extends RxSliceError {
  override readonly name = 'InvalidSliceDefinitionError';
  constructor(readonly sliceName: string, reason: string) {
    super('INVALID_SLICE_DEFINITION', `Slice ${quote(sliceName)} is invalid: ${reason}`);
  }
}

/**
 * Declares a slice: a named, typed, ordered sequence of immutable items and the reducers
 * that change it. The declaration is inert and can be used by any number of sessions.
 *
 * @remarks The item type comes from `schema` (its output type), or from `initial`, or an
 * explicit type argument. `initial` items are checked to be plain JSON data, parsed with
 * `schema` (its output is kept) and deep-frozen here; one that fails is an
 * {@link InvalidSliceDefinitionError}.
 * @throws {@link InvalidSliceDefinitionError} when the name is empty, starts with `rxslice.`, or
 * is unsafe (`__proto__`, `constructor`, `prototype`, a `.` or `..` segment, an empty segment
 * as in `a//b` or `/a`, a `\` or a control character; `/` separates segments, as in
 * `machine/agent`),
 * `policy` is neither `'state'` nor `'log'`, or `eviction` is given without a window that makes
 * an eviction choice, `version` is not an integer ≥ 1, or `migrations` misses a step of the
 * chain `1 .. version - 1` (or has a key outside it); `InvalidWindowError` when the policy does
 * not suit the window (sampling in a predicate window).
 * @example
 * ```ts
 * const Plan = defineSlice('plan', {
 *   policy: 'state',
 *   schema: z.object({ steps: z.array(z.string()) }),
 *   initial: [{ steps: [] }],
 *   reducers: ({ onLatest }) => [onLatest(StepAdded, (plan, e) => ({ steps: [...(plan?.steps ?? []), e.payload.step] }))],
 * });
 * type PlanItem = typeof Plan.Item; // { steps: string[] }
 * ```
 */
export function defineSlice<TItem, const TName extends string = string>(
  name: TName,
  config: SliceConfig<TItem, readonly []> & { readonly reducers?: undefined },
): SliceDef<TName, TItem, never>;
export function defineSlice<TItem, const TName extends string = string, TReducers extends readonly ReducerEntry<NoInfer<TItem>, Event>[] = readonly ReducerEntry<NoInfer<TItem>, Event>[]>(
  name: TName,
  config: SliceConfig<TItem, TReducers>,
): SliceDef<TName, TItem, ReducerEvent<TReducers[number]>>;
export function defineSlice<TItem>(name: string, config: SliceConfig<TItem>): SliceDef<string, TItem, Event> {
  const problem = sliceNameProblem(name);
  if (problem !== undefined) throw new InvalidSliceDefinitionError(String(name), problem);
  if (config.policy !== 'state' && config.policy !== 'log') {
    throw new InvalidSliceDefinitionError(name, !DEV ? codedMessage('E26', clip(JSON.stringify(config.policy))) : `policy must be 'state' or 'log', got ${clip(JSON.stringify(config.policy))}.`);
  }
  const version = config.version ?? 1;
  const migrationProblem = migrationConfigProblem(version, config.migrations);
  if (migrationProblem !== undefined) throw new InvalidSliceDefinitionError(name, migrationProblem);
  let window = config.window;
  const windowProblem = windowPolicyProblem(window);
  if (windowProblem !== undefined) throw new InvalidSliceDefinitionError(name, windowProblem);
  if (config.eviction !== undefined) {
    if (window?.withEviction === undefined) {
      throw new InvalidSliceDefinitionError(
        name,
        !DEV
          ? codedMessage('E27', `${quote(config.eviction.description)}${window === undefined ? '' : ` window ${window.description}`}`)
          : window === undefined
          ? `eviction ${quote(config.eviction.description)} needs a window to choose from: add window: SliceWindow.count(n).`
          : `its window ${window.description} evicts by its own rule, so eviction ${quote(config.eviction.description)} does not apply. Use SliceWindow.count or SliceWindow.predicate.`,
      );
    }
    window = window.withEviction(config.eviction);
  }
  const initial = initialItems(name, config.schema, config.initial ?? []);
  return Object.freeze({
    name,
    policy: config.policy,
    schema: config.schema,
    initial: Object.freeze(initial),
    reducers: Object.freeze([...(config.reducers?.(reducerBuilder as ReducerBuilder<TItem>) ?? [])]),
    middleware: Object.freeze([...(config.middleware ?? [])]),
    window,
    version,
    migrations: Object.freeze({ ...config.migrations }),
    Item: undefined as TItem,
  });
}

/**
 * @internal Why `window` is not a window policy (`undefined` when it is one, or absent): a window
 * is made by `SliceWindow` (`count`, `time`, `predicate`, `composite`) or implements
 * `SliceWindowPolicy` (`description` and `evict`).
 */
export function windowPolicyProblem(window: unknown): string | undefined {
  if (window === undefined) return undefined;
  const w = window as Partial<SliceWindowPolicy<unknown>> | null;
  if (w !== null && typeof w === 'object' && typeof w.evict === 'function' && typeof w.description === 'string') return undefined;
  let shown: string;
  try {
    shown = JSON.stringify(window) ?? String(window);
  } catch {
    shown = typeof window;
  }
  const given = shown.length > 80 ? `${shown.slice(0, 77)}...` : shown;
  return !DEV
    ? codedMessage('E28', given)
    : `window must be a window policy such as SliceWindow.count(100), SliceWindow.time({ maxAgeSeconds: 60 }) or SliceWindow.predicate(...), got ${given}.`;
}

/**
 * @internal A slice's initial items as it keeps them: each checked to be plain JSON data, then
 * the schema's output when there is a schema (so they read back the same from any snapshot, as
 * reducer output does), deep-frozen.
 * @throws {@link InvalidSliceDefinitionError} naming the first bad item.
 */
export function initialItems<TItem>(name: string, schema: z.ZodType<TItem> | undefined, items: readonly unknown[]): TItem[] {
  return items.map((item, index) => {
    const problem = jsonProblem(item);
    if (problem !== undefined) throw new InvalidSliceDefinitionError(
        name,
        !DEV ? codedMessage('E29', `initial item ${index}: ${problem.message} at ${problem.path.join('.')}`) : `initial item ${index} is not plain JSON data: ${problem.message} at ${problem.path.length === 0 ? 'the item' : problem.path.join('.')}.`,
      );
    if (schema === undefined) return deepFreeze(item) as TItem;
    const parsed = schema.safeParse(item);
    if (!parsed.success) throw new InvalidSliceDefinitionError(name, !DEV ? codedMessage('E30', `initial item ${index}: ${formatIssues(toIssues(parsed.error.issues))}`) : `initial item ${index} does not match its schema: ${formatIssues(toIssues(parsed.error.issues))}.`);
    return deepFreeze(parsed.data);
  });
}
