import type { z } from 'zod';
import { RxSliceError } from '../internal/errors';
import { deepFreeze } from '../internal/freeze';
import { on, type ReducerEntry, type ReducerMiddleware, type SliceDef, type SlicePolicy } from './reducer';
import { onLatest, produceLatest } from './latest-reducers';
import type { ReducerBuilder } from './reducer-builder';
import type { EvictionPolicy, SliceWindowPolicy } from './window-contract';

/** Options of {@link defineSlice}. */
export interface SliceConfig<TItem> {
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
  readonly reducers?: (builder: ReducerBuilder<NoInfer<TItem>>) => readonly ReducerEntry<NoInfer<TItem>>[];
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
}

const reducerBuilder: ReducerBuilder<unknown> = { on, onLatest, produceLatest };

/** Thrown when a slice declaration is malformed (empty name, reserved name, bad policy). */
export class InvalidSliceDefinitionError extends RxSliceError {
  override readonly name = 'InvalidSliceDefinitionError';
  constructor(readonly sliceName: string, reason: string) {
    super('INVALID_SLICE_DEFINITION', `Slice "${sliceName}" is invalid: ${reason}`);
  }
}

/**
 * Declares a slice: a named, typed, ordered sequence of immutable items and the reducers
 * that change it. The declaration is inert and can be used by any number of sessions.
 *
 * @remarks The item type comes from `schema` (its output type), or from `initial`, or an
 * explicit type argument. `initial` items are deep-frozen here.
 * @throws {@link InvalidSliceDefinitionError} when the name is empty or starts with `rxslice.`,
 * `policy` is neither `'state'` nor `'log'`, or `eviction` is given without a window that makes
 * an eviction choice; `InvalidWindowError` when the policy does not suit the window (sampling
 * in a predicate window).
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
  config: SliceConfig<TItem>,
): SliceDef<TName, TItem> {
  if (typeof name !== 'string' || name.length === 0) {
    throw new InvalidSliceDefinitionError(String(name), 'the name must be a non-empty string.');
  }
  if (name.startsWith('rxslice.')) {
    throw new InvalidSliceDefinitionError(name, 'names starting with "rxslice." are reserved for the library.');
  }
  if (config.policy !== 'state' && config.policy !== 'log') {
    throw new InvalidSliceDefinitionError(name, `policy must be 'state' or 'log', got ${JSON.stringify(config.policy)}.`);
  }
  let window = config.window;
  if (config.eviction !== undefined) {
    if (window?.withEviction === undefined) {
      throw new InvalidSliceDefinitionError(
        name,
        window === undefined
          ? `eviction "${config.eviction.description}" needs a window to choose from: add window: SliceWindow.count(n).`
          : `its window ${window.description} evicts by its own rule, so eviction "${config.eviction.description}" does not apply. Use SliceWindow.count or SliceWindow.predicate.`,
      );
    }
    window = window.withEviction(config.eviction);
  }
  const initial = (config.initial ?? []).map((item) => deepFreeze(item));
  return Object.freeze({
    name,
    policy: config.policy,
    schema: config.schema,
    initial: Object.freeze(initial),
    reducers: Object.freeze([...(config.reducers?.(reducerBuilder as ReducerBuilder<TItem>) ?? [])]),
    middleware: Object.freeze([...(config.middleware ?? [])]),
    window,
    Item: undefined as TItem,
  });
}
