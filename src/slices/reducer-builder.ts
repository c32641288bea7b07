import type { Draft } from 'immer';
import type { Event, EventCreator } from '../events/event';
import type { AnyChannelDef } from '../events/define-channel';
import type { Reducer, ReducerContext, ReducerEntry, ReducerOptions } from './reducer';
import type { UncalledHelperReducer } from './helper-reducers';

/**
 * The reducer helpers handed to `defineSlice({ reducers })`, already bound to the slice's
 * item type so that reducers are checked against it: `on`, `onLatest`, `produceLatest`
 * (see the standalone functions of the same names for their behaviour).
 */
export interface ReducerBuilder<TItem> {
  /**
   * {@link on}, bound to the slice's item type: binds `reducer` (`(view, event, ctx) => SliceOp`) to `creator`'s events.
   * `options` is a reducer name or `{ name, channel }`.
   * @example
   * ```ts
   * defineSlice('messages', { policy: 'log', reducers: ({ on }) => [on(MessageAdded, (_view, e) => append(e.payload))] });
   * ```
   */
  on<TType extends string, TPayload, TChannel extends AnyChannelDef = AnyChannelDef>(
    creator: EventCreator<TType, TPayload>,
    reducer: Reducer<TItem, Event<TType, TPayload>>,
    options?: string | ReducerOptions<TChannel, TType>,
  ): ReducerEntry<TItem, Event<TType, TPayload>>;
  /** An uncalled helper reducer (`appendAll`, `replaceLatest`): the helper called with its defaults (the payload is the item). */
  on<TType extends string, TPayload, TChannel extends AnyChannelDef = AnyChannelDef>(
    creator: EventCreator<TType, TPayload>,
    helper: UncalledHelperReducer,
    options?: string | ReducerOptions<TChannel, TType>,
  ): ReducerEntry<TItem, Event<TType, TPayload>>;
  /**
   * {@link onLatest}, bound to the slice's item type: `reducer` gets the latest item (or `undefined`) and returns the next one,
   * which replaces it; returning the same reference changes nothing.
   */
  onLatest<TType extends string, TPayload, TChannel extends AnyChannelDef = AnyChannelDef>(
    creator: EventCreator<TType, TPayload>,
    reducer: (latest: TItem | undefined, event: Event<TType, TPayload>, ctx: ReducerContext<TItem, Event<TType, TPayload>>) => TItem,
    options?: string | ReducerOptions<TChannel, TType>,
  ): ReducerEntry<TItem, Event<TType, TPayload>>;
  /**
   * {@link produceLatest}, bound to the slice's item type: an immer recipe on a draft of the latest item.
   * @throws {@link NoLatestItemError} (as the `cause` of a `ReducerError`) when the slice is empty.
   */
  produceLatest<TType extends string, TPayload, TChannel extends AnyChannelDef = AnyChannelDef>(
    creator: EventCreator<TType, TPayload>,
    recipe: (draft: Draft<TItem>, event: Event<TType, TPayload>) => void | TItem,
    options?: string | ReducerOptions<TChannel, TType>,
  ): ReducerEntry<TItem, Event<TType, TPayload>>;
}
