import type { Draft } from 'immer';
import type { Event, EventCreator } from '../events/event';
import type { Reducer, ReducerContext, ReducerEntry } from './reducer';

/**
 * The reducer helpers handed to `defineSlice({ reducers })`, already bound to the slice's
 * item type so that reducers are checked against it: `on`, `onLatest`, `produceLatest`
 * (see the standalone functions of the same names for their behaviour).
 */
export interface ReducerBuilder<TItem> {
  on<TType extends string, TPayload>(
    creator: EventCreator<TType, TPayload>,
    reducer: Reducer<TItem, Event<TType, TPayload>>,
    name?: string,
  ): ReducerEntry<TItem>;
  onLatest<TType extends string, TPayload>(
    creator: EventCreator<TType, TPayload>,
    reducer: (latest: TItem | undefined, event: Event<TType, TPayload>, ctx: ReducerContext<TItem, Event<TType, TPayload>>) => TItem,
    name?: string,
  ): ReducerEntry<TItem>;
  produceLatest<TType extends string, TPayload>(
    creator: EventCreator<TType, TPayload>,
    recipe: (draft: Draft<TItem>, event: Event<TType, TPayload>) => void | TItem,
    name?: string,
  ): ReducerEntry<TItem>;
}
