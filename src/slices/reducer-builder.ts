import type { Draft } from 'immer';
import type { Event, EventCreator } from '../events/event';
import type { AnyChannelDef } from '../events/define-channel';
import type { Reducer, ReducerContext, ReducerEntry, ReducerOptions } from './reducer';

/**
 * The reducer helpers handed to `defineSlice({ reducers })`, already bound to the slice's
 * item type so that reducers are checked against it: `on`, `onLatest`, `produceLatest`
 * (see the standalone functions of the same names for their behaviour).
 */
export interface ReducerBuilder<TItem> {
  on<TType extends string, TPayload, TChannel extends AnyChannelDef = AnyChannelDef>(
    creator: EventCreator<TType, TPayload>,
    reducer: Reducer<TItem, Event<TType, TPayload>>,
    options?: string | ReducerOptions<TChannel, TType>,
  ): ReducerEntry<TItem, Event<TType, TPayload>>;
  onLatest<TType extends string, TPayload, TChannel extends AnyChannelDef = AnyChannelDef>(
    creator: EventCreator<TType, TPayload>,
    reducer: (latest: TItem | undefined, event: Event<TType, TPayload>, ctx: ReducerContext<TItem, Event<TType, TPayload>>) => TItem,
    options?: string | ReducerOptions<TChannel, TType>,
  ): ReducerEntry<TItem, Event<TType, TPayload>>;
  produceLatest<TType extends string, TPayload, TChannel extends AnyChannelDef = AnyChannelDef>(
    creator: EventCreator<TType, TPayload>,
    recipe: (draft: Draft<TItem>, event: Event<TType, TPayload>) => void | TItem,
    options?: string | ReducerOptions<TChannel, TType>,
  ): ReducerEntry<TItem, Event<TType, TPayload>>;
}
