import { produce, type Draft } from 'immer';
import type { Event, EventCreator } from '../events/event';
import { codedMessage } from '../internal/coded-message';
import { DEV } from '../internal/dev';
import { RxSliceError } from '../internal/errors';
import { reducerName, type ReducerContext, type ReducerEntry, type ReducerOptions } from './reducer';
import type { AnyChannelDef } from '../events/define-channel';
import { append, replace, none, type SliceOp } from './slice-op';
import type { SliceView } from './slice-view';
import { quote } from '../internal/quote';

/** Replaces the last item with `next` (appends when the view is empty). O(size). */
export function replaceLatestOp<TItem>(view: SliceView<TItem>, next: TItem): SliceOp<TItem> {
  const size = view.size;
  if (size === 0) return append(next);
  if (view.latest() === next) return none();
  if (size === 1) return replace([next]);
  const all = view.all();
  const items = all.slice(0, all.length - 1);
  items.push(next);
  return replace(items);
}

/**
 * Handles the "one current value" case: the reducer gets the latest item (or `undefined`)
 * and returns the next one, which replaces it. Returning the same reference changes nothing.
 * @example
 * ```ts
 * const Usage = defineSlice('usage', { policy: 'state', initial: [{ input: 0, output: 0 }],
 *   reducers: [onLatest(TokensUsed, (u, e) => ({ input: (u?.input ?? 0) + e.payload.input, output: (u?.output ?? 0) + e.payload.output }))] });
 * ```
 */
export function onLatest<TItem, TType extends string, TPayload, TChannel extends AnyChannelDef = AnyChannelDef>(
  creator: EventCreator<TType, TPayload>,
  reducer: (latest: TItem | undefined, event: Event<TType, TPayload>, ctx: ReducerContext<TItem, Event<TType, TPayload>>) => TItem,
  options?: string | ReducerOptions<TChannel, TType>,
): ReducerEntry<TItem, Event<TType, TPayload>> {
  return {
    eventType: creator.type,
    schema: creator.schema,
    name: reducerName(creator.type, options) ?? `onLatest(${creator.type})`,
    latest: reducer as ReducerEntry<TItem>['latest'],
    reducer: (view: SliceView<TItem>, event: Event<TType, TPayload>, ctx: ReducerContext<TItem, Event<TType, TPayload>>) => {
      const latest = view.latest();
      const next = reducer(latest, event, ctx);
      return next === latest && latest !== undefined ? none() : replaceLatestOp(view, next);
    },
  };
}

/** Thrown by `produceLatest` when the slice has no item to draft from. */
export class NoLatestItemError extends RxSliceError {
  override readonly name = 'NoLatestItemError';
  constructor(readonly sliceName: string) {
    super(
      'NO_LATEST_ITEM',
      !DEV ? codedMessage('E42', quote(sliceName)) : `produceLatest on slice ${quote(sliceName)} needs a latest item to draft from. Give the slice an initial item: defineSlice(${quote(sliceName)}, { initial: [...] }).`,
    );
  }
}

/**
 * Like {@link onLatest}, with an immer recipe: mutate the draft of the latest item (or return
 * a new one); the produced item replaces it. Unchanged drafts change nothing.
 * @throws {@link NoLatestItemError} (as the `cause` of a `ReducerError`) when the slice is empty.
 * @example
 * ```ts
 * produceLatest(StepCompleted, (plan, e) => { plan.steps[e.payload.index]!.done = true; });
 * ```
 */
export function produceLatest<TItem, TType extends string, TPayload, TChannel extends AnyChannelDef = AnyChannelDef>(
  creator: EventCreator<TType, TPayload>,
  recipe: (draft: Draft<TItem>, event: Event<TType, TPayload>) => void | TItem,
  options?: string | ReducerOptions<TChannel, TType>,
): ReducerEntry<TItem, Event<TType, TPayload>> {
  return {
    eventType: creator.type,
    schema: creator.schema,
    name: reducerName(creator.type, options) ?? `produceLatest(${creator.type})`,
    reducer: (view: SliceView<TItem>, event: Event<TType, TPayload>, ctx: ReducerContext<TItem, Event<TType, TPayload>>) => {
      if (view.isEmpty) throw new NoLatestItemError(ctx.slice);
      const latest = view.latest() as TItem;
      const next = produce(latest, (draft: Draft<TItem>) => recipe(draft, event) as any) as TItem;
      return next === latest ? none() : replaceLatestOp(view, next);
    },
  };
}
