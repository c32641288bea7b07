import type { Event } from '../events/event';
import type { Reducer } from './reducer';
import { append, extend, none, replace, updateAt, type SliceOp } from './slice-op';
import type { SliceView } from './slice-view';
import { replaceLatestOp } from './latest-reducers';

/**
 * Picks the item a helper reducer writes from the event (default: the event's payload).
 * Called once per event, inside the reducer: it must be pure and must not dispatch.
 * @example
 * ```ts
 * on(PlanUpdated, replaceLatest((e) => e.payload.plan));
 * ```
 */
export type SelectItem<TItem, TEvent> = (event: TEvent) => TItem;
/**
 * Picks the item or items {@link appendAll} appends from the event (default: the payload):
 * an array appends each element in order, anything else appends as one item.
 */
export type SelectItems<TItem, TEvent> = (event: TEvent) => TItem | readonly TItem[];

const payloadOf = (event: Event): any => event.payload;

/**
 * Reducer appending the event's payload (or `select(event)`); an array appends each element.
 * @example
 * ```ts
 * on(MessagesLoaded, appendAll()); // payload: Message[] → each appended
 * ```
 */
export function appendAll<TItem, TEvent extends Event = Event>(
  select: SelectItems<TItem, TEvent> = payloadOf,
): Reducer<TItem, TEvent> {
  return (_view, event) => {
    const out = select(event);
    return Array.isArray(out) ? extend(out as readonly TItem[]) : append(out as TItem);
  };
}

/**
 * Reducer replacing the latest item with the payload (or `select(event)`); appends when empty.
 * @example
 * ```ts
 * on(PlanUpdated, replaceLatest()); // the slice holds the current plan as its latest item
 * ```
 */
export function replaceLatest<TItem, TEvent extends Event = Event>(
  select: SelectItem<TItem, TEvent> = payloadOf,
): Reducer<TItem, TEvent> {
  return (view, event) => replaceLatestOp(view, select(event));
}

/**
 * Reducer replacing the most recent item whose `key` equals the new item's (scanning from
 * the newest, so O(distance from the end)), or appending when there is none. The match is
 * swapped in place with {@link updateAt}: the other items are not copied by the reducer.
 * @example
 * ```ts
 * on(ToolResulted, replaceLatestBy('id', (e) => ({ ...e.payload, status: 'done' })));
 * ```
 */
export function replaceLatestBy<TItem, TKey extends keyof TItem, TEvent extends Event = Event>(
  key: TKey,
  select: SelectItem<TItem, TEvent> = payloadOf,
): Reducer<TItem, TEvent> {
  return (view, event) => replaceLatestByOp(view, key, select(event));
}

/**
 * @internal The op of {@link replaceLatestBy} for `next`: an `updateAt` of the newest item whose
 * `key` equals `next[key]`, `none` when that item is `next` itself, else an `append`.
 */
export function replaceLatestByOp<TItem, TKey extends keyof TItem>(view: SliceView<TItem>, key: TKey, next: TItem): SliceOp<TItem> {
  // view.at reads the storage directly (no array is made for the scan).
  for (let i = view.size - 1; i >= 0; i--) {
    const item = view.at(i) as TItem;
    if (item[key] === next[key]) return item === next ? none() : updateAt(i, next);
  }
  return append(next);
}

/**
 * Reducer inserting or updating items by `key`: each incoming item (payload, array payload,
 * or `select(event)`) replaces the item with the same key in place, or is appended. O(size).
 * @example
 * ```ts
 * on(TodosWritten, upsertBy('id', (e) => e.payload.todos));
 * ```
 */
export function upsertBy<TItem, TKey extends keyof TItem, TEvent extends Event = Event>(
  key: TKey,
  select: SelectItems<TItem, TEvent> = payloadOf,
): Reducer<TItem, TEvent> {
  return (view, event) => {
    const out = select(event);
    const incoming = (Array.isArray(out) ? out : [out]) as readonly TItem[];
    if (incoming.length === 0) return none();
    const items = view.all().slice();
    const index = new Map<unknown, number>();
    for (let i = 0; i < items.length; i++) index.set((items[i] as TItem)[key], i);
    for (const item of incoming) {
      const at = index.get(item[key]);
      if (at === undefined) {
        index.set(item[key], items.length);
        items.push(item);
      } else {
        items[at] = item;
      }
    }
    return replace(items);
  };
}

/**
 * A helper reducer named without calling it: `appendAll` or `replaceLatest` (the seed writes
 * `register(Plan, replace_latest)`). `on` and `register` take it as the helper called with its
 * defaults (`appendAll()`, `replaceLatest()`: the event's payload is the item).
 */
export type UncalledHelperReducer = typeof appendAll | typeof replaceLatest;

/**
 * @internal `reducer`, or the reducer an uncalled helper stands for (see {@link UncalledHelperReducer}).
 * `replaceLatestBy` and `upsertBy` need their key, so they are always called.
 */
export function asReducer<TItem, TEvent extends Event>(reducer: Reducer<TItem, TEvent> | UncalledHelperReducer): Reducer<TItem, TEvent> {
  if (reducer === appendAll) return appendAll<TItem, TEvent>();
  if (reducer === replaceLatest) return replaceLatest<TItem, TEvent>();
  return reducer as Reducer<TItem, TEvent>;
}
