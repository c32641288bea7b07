import { codedMessage } from '../internal/coded-message';
import { DEV } from '../internal/dev';
import type { Event, EventCreator } from '../events/event';
import type { AnyChannelDef, InferChannelEvent } from '../events/define-channel';
import { InvalidChannelError } from '../events/invalid-channel-error';
import type { EnvelopeMeta } from '../events/envelope';
import type { SliceOp } from './slice-op';
import type { SliceView } from './slice-view';
import type { UncalledHelperReducer } from './helper-reducers';
import { quote } from '../internal/quote';

/**
 * What every reducer call receives besides the view and the event. `previous` is the view
 * the reducer is called with (the pending state of the slice for this event), `session` a
 * read-only accessor for other slices, `metadata` the envelope's metadata.
 *
 * @remarks Valid during the call only: the session keeps one context object per reducer and
 * points it at the envelope being reduced (no allocation on the hot path), so copy the fields
 * you want to keep. `event`, `eventType`, `metadata`, `seq` and `at` are accessors shared by
 * the session's contexts: read them (or spread them by name), `{ ...ctx }` does not copy them.
 */
export interface ReducerContext<TItem = unknown, TEvent extends Event = Event> {
  /** The event being reduced. */
  readonly event: TEvent;
  /** `event.type`. */
  readonly eventType: string;
  /** The name of the slice being reduced. */
  readonly slice: string;
  /** The view the reducer is called with: the slice's pending state for this event. */
  readonly previous: SliceView<TItem>;
  /** The reducer's name (from its options; by default the event type, or `onLatest(type)`), as errors report it. */
  readonly reducerName: string;
  /** Read-only access to the session's other slices. */
  readonly session: SessionReader;
  /** The envelope's metadata. */
  readonly metadata: EnvelopeMeta;
  /** The envelope's `seq`. */
  readonly seq: number;
  /** The envelope's `at`: the session scheduler's time (ms) when the event was accepted. */
  readonly at: number;
}

/** Read-only access to a session's committed slices (for reducer context, epics and computed). */
export interface SessionReader {
  /** Committed items of the named slice (throws `SliceNotRegisteredError` when unknown). */
  read<TItem>(slice: SliceDef<string, TItem> | string): readonly TItem[];
}

/**
 * A pure, synchronous reducer: `(view, event, ctx) => SliceOp`. It must not dispatch
 * (doing so throws `DispatchInReducerError`) and must not mutate `view`.
 */
export type Reducer<TItem, TEvent extends Event = Event> = (
  view: SliceView<TItem>,
  event: TEvent,
  ctx: ReducerContext<TItem, TEvent>,
) => SliceOp<TItem>;

/**
 * A reducer bound to one event type, as listed in `defineSlice({ reducers })`. `TEvent` is the
 * event it handles (`on(StepAdded, ...)` gives `Event<'plan/stepAdded', { step: string }>`), so
 * the session's `dispatch` is typed by its slices' reducers.
 */
export interface ReducerEntry<TItem, TEvent extends Event = Event> {
  /** The event type the reducer handles. */
  readonly eventType: string;
  /** The reducer's name, reported in `ReducerContext.reducerName` and errors. */
  readonly name: string;
  /** The reducer: `(view, event, ctx) => SliceOp`. */
  readonly reducer: Reducer<TItem, any>;
  /** The event's payload schema, so the session validates dispatches of this type. */
  readonly schema?: import('zod').ZodType | undefined;
  /** Phantom: the event the reducer handles (type level only; never set at run time). */
  readonly Event?: TEvent;
  /**
   * @internal Set by `onLatest`: the user's `(latest, event, ctx) => next` itself. A route
   * without reducer middleware calls it directly and stages `next` as the slice's new latest
   * item, with no op object; `reducer` (the same logic returning an op) serves every other
   * caller (middleware chains, tests that call reducers by hand).
   */
  readonly latest?: ((latest: TItem | undefined, event: any, ctx: ReducerContext<TItem, any>) => TItem) | undefined;
}

/** The event a reducer entry handles: `ReducerEvent<ReturnType<typeof on>>`. */
export type ReducerEvent<TEntry> = TEntry extends ReducerEntry<any, infer TEvent> ? TEvent : never;

/**
 * Reducer middleware: runs around each reducer call (global ones first, then the slice's),
 * may observe or change the op, short-circuit by not calling `next`, or turn errors into
 * other errors. Must be synchronous.
 */
export type ReducerMiddleware = (ctx: ReducerContext<any>, next: () => SliceOp<any>) => SliceOp<any>;

/** How a slice behaves on rollback and in snapshots: working `state`, or append-only `log`. */
export type SlicePolicy = 'state' | 'log';

/**
 * The migrations of a slice: key `k` upgrades one stored item from schema version `k` to
 * `k + 1`. A slice at `version: 3` needs keys `1` and `2`.
 *
 * @remarks Each step receives an item as it was stored (or as the previous step returned it)
 * and returns the upgraded item; it must be pure and must not mutate its argument (stored
 * items may be frozen). Only the last step's output is validated, with the slice's current
 * schema.
 */
export type SliceMigrations = {
  /** Upgrades one stored item from schema version `fromVersion` to `fromVersion + 1`; a throw is a `MigrationError`. */
  readonly [fromVersion: number]: (item: any) => unknown;
};

/**
 * A slice declaration made by `defineSlice` (inert, reusable across sessions). `TEvent` is the
 * union of the events its declared reducers handle (`Event`, any event, when not known).
 */
export interface SliceDef<TName extends string = string, TItem = unknown, TEvent extends Event = Event> {
  /** The slice's name, unique in a session. */
  readonly name: TName;
  /** `'state'` (working state) or `'log'` (append-only); see {@link SlicePolicy}. */
  readonly policy: SlicePolicy;
  /** The items' zod schema, when given: items are validated against it. */
  readonly schema: import('zod').ZodType<TItem> | undefined;
  /** The items the slice starts with (and returns to on `reset`). */
  readonly initial: readonly TItem[];
  /** The reducers, in the order they run for an event. */
  readonly reducers: readonly ReducerEntry<TItem>[];
  /** The slice's reducer middleware (run after the session's global middleware). */
  readonly middleware: readonly ReducerMiddleware[];
  /** The window bounding the slice (evicting after each reducer), when given. */
  readonly window: import('./window-contract').SliceWindowPolicy<TItem> | undefined;
  /** Schema version of the items (integer ≥ 1, default 1); stored data carries it. */
  readonly version: number;
  /** Steps upgrading stored items to `version`: key `k` upgrades from `k` to `k + 1` (see `migrateItems`). */
  readonly migrations: SliceMigrations;
  /** Phantom field carrying the item type: `typeof Plan.Item`. Always `undefined` at run time. */
  readonly Item: TItem;
  /** Phantom: the events its declared reducers handle (type level only; never set at run time). */
  readonly Event?: TEvent;
}

/** The events a slice's declared reducers handle: `InferSliceEvent<typeof Plan>` (`Event` when not known). */
export type InferSliceEvent<TSlice> = TSlice extends SliceDef<string, any, infer TEvent> ? TEvent : never;

/** The item type of a slice definition: `InferItem<typeof Messages>`. */
export type InferItem<TSlice> = TSlice extends SliceDef<string, infer TItem> ? TItem : never;

/**
 * Binds a reducer to an event type.
 *
 * @param creator - The event creator (from `defineEvent`) whose events this reducer handles.
 * @param reducer - `(view, event, ctx) => SliceOp`; the event's payload type is inferred. An
 * uncalled helper (`appendAll`, `replaceLatest`) stands for the helper called with its defaults.
 * @param options - Optional name reported in `ReducerContext.reducerName` and errors, or
 * `{ name, channel }` (see {@link ReducerOptions}).
 * @example
 * ```ts
 * const Messages = defineSlice('messages', {
 *   policy: 'log', schema: Message,
 *   reducers: [on(MessageAdded, (_view, e) => append(e.payload))],
 * });
 * ```
 */
export function on<TItem, TType extends string, TPayload, TChannel extends AnyChannelDef = AnyChannelDef>(
  creator: EventCreator<TType, TPayload>,
  reducer: Reducer<TItem, Event<TType, TPayload>>,
  options?: string | ReducerOptions<TChannel, TType>,
): ReducerEntry<TItem, Event<TType, TPayload>>;
export function on<TItem, TType extends string, TPayload, TChannel extends AnyChannelDef = AnyChannelDef>(
  creator: EventCreator<TType, TPayload>,
  helper: UncalledHelperReducer,
  options?: string | ReducerOptions<TChannel, TType>,
): ReducerEntry<TItem, Event<TType, TPayload>>;
export function on<TItem, TType extends string, TPayload, TChannel extends AnyChannelDef = AnyChannelDef>(
  creator: EventCreator<TType, TPayload>,
  reducer: Reducer<TItem, Event<TType, TPayload>> | UncalledHelperReducer,
  options?: string | ReducerOptions<TChannel, TType>,
): ReducerEntry<TItem, Event<TType, TPayload>> {
  return { eventType: creator.type, name: reducerName(creator.type, options) ?? creator.type, reducer: reducer as Reducer<TItem, any>, schema: creator.schema };
}

/**
 * The third argument of `on`, `onLatest` and `produceLatest`: the reducer's name (reported in
 * `ReducerContext.reducerName` and errors) and the channel its event belongs to. Declaring the
 * channel documents which stream feeds the slice; the type checker rejects a channel that does
 * not carry the event (and so does the definition at run time, with `InvalidChannelError`).
 */
export interface ReducerOptions<TChannel extends AnyChannelDef = AnyChannelDef, TType extends string = string> {
  /** The reducer's name, reported in `ReducerContext.reducerName` and errors. */
  readonly name?: string;
  /** The channel the event belongs to: a compile error when it does not carry the event type. */
  readonly channel?: TChannel & ([TType] extends [InferChannelEvent<TChannel>['type']] ? unknown : { readonly 'this channel does not carry the event': TType });
}

/** @internal The name given by a reducer's options, after checking their channel. */
export function reducerName(eventType: string, options: string | { readonly name?: string | undefined; readonly channel?: unknown } | undefined): string | undefined {
  if (options === undefined || typeof options === 'string') return options;
  const channel = options.channel as AnyChannelDef | undefined;
  if (channel !== undefined) {
    if (!Array.isArray(channel?.eventTypes)) throw new InvalidChannelError(String((channel as { name?: unknown })?.name), !DEV ? codedMessage('E52', 'not a channel') : 'a reducer option "channel" takes a channel made by defineChannel');
    if (!channel.eventTypes.includes(eventType)) {
      throw new InvalidChannelError(channel.name, !DEV ? codedMessage('E53', `${quote(eventType)} not in ${channel.eventTypes.join(', ')}`) : `a reducer on ${quote(eventType)} declares this channel, which carries only ${channel.eventTypes.join(', ')}`);
    }
  }
  return options.name;
}
