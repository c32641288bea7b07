import { defineEventUnchecked } from '../events/define-event';
import type { Event } from '../events/event';
import type { SliceDef } from '../slices/reducer';

/**
 * The library's own events for changes that do not come from user reducers. They go through
 * the same pipeline (envelope, `events$`, commit, `committed$`), so every change to a slice is
 * auditable from the event stream; they bypass operator middleware, so a middleware cannot drop
 * or rewrite them (a restore or a transaction's rollback always happens).
 *
 * `rxslice.slice.seeded`: `session.slice(def).seed(items)` replaced the slice's items (already
 * validated with its schema).
 * @example
 * ```ts
 * session.committed$.pipe(ofType(SliceSeeded)).subscribe((c) => console.log(c.event.payload.slice)); // Logs: messages
 * session.slice(Messages).seed([{ text: 'hi' }]);
 * ```
 */
export const SliceSeeded = /* @__PURE__ */ defineEventUnchecked<{ readonly slice: string; readonly items: readonly unknown[] }>(
  'rxslice.slice.seeded',
);
/**
 * `rxslice.slice.cleared`: `session.slice(def).clear()` removed every item. See {@link SliceSeeded}.
 * @example
 * ```ts
 * session.committed$.pipe(ofType(SliceCleared)).subscribe((c) => console.log(c.event.payload.slice)); // Logs: messages
 * session.slice(Messages).clear();
 * ```
 */
export const SliceCleared = /* @__PURE__ */ defineEventUnchecked<{ readonly slice: string }>('rxslice.slice.cleared');
/**
 * `rxslice.slice.appended`: `session.slice(def).append(...items)` appended `items` (already
 * validated with the slice's schema). See {@link SliceSeeded}.
 * @example
 * ```ts
 * session.committed$.pipe(ofType(SliceAppended)).subscribe((c) => console.log(c.event.payload.items.length)); // Logs: 2
 * session.slice(Digest).append(entryA, entryB);
 * ```
 */
export const SliceAppended = /* @__PURE__ */ defineEventUnchecked<{ readonly slice: string; readonly items: readonly unknown[] }>('rxslice.slice.appended');
/**
 * `rxslice.slice.latestReplaced`: `session.slice(def).replaceLatest(item)` replaced the latest
 * item (appended it to an empty slice), or `replaceLatestBy(key, item)` replaced the newest item
 * whose `key` equals the item's (appended it when there was none). See {@link SliceSeeded}.
 * @example
 * ```ts
 * session.committed$.pipe(ofType(SliceLatestReplaced)).subscribe((c) => console.log(c.event.payload.key)); // Logs: id
 * session.slice(Tools).replaceLatestBy('id', { id: 't1', status: 'done' });
 * ```
 */
export const SliceLatestReplaced = /* @__PURE__ */ defineEventUnchecked<{ readonly slice: string; readonly item: unknown; readonly key?: string | undefined }>(
  'rxslice.slice.latestReplaced',
);
/**
 * `rxslice.slice.installed`: `session.install(def, { initial? })` added the slice `slice` to the
 * running session (its storage opened like the others': a durable store's items recovered, else
 * the initial items). The event changes no item: it records, on the stream and in recordings,
 * when the slice joined. See {@link SliceSeeded}.
 * @example
 * ```ts
 * session.committed$.pipe(ofType(SliceInstalled)).subscribe((c) => console.log(c.event.payload)); // Logs: { slice: 'agentPlan', items: 1 }
 * session.install(AgentPlan, { initial: () => [{ steps: [] }] });
 * ```
 */
export const SliceInstalled = /* @__PURE__ */ defineEventUnchecked<{ readonly slice: string; readonly items: number }>('rxslice.slice.installed');
/**
 * `rxslice.session.reset`: `session.reset()` cleared every slice (`to: 'empty'`, the default), or
 * `session.reset({ to: 'initial' })` returned every slice to its `initial` items. See {@link SliceSeeded}.
 * @example
 * ```ts
 * session.committed$.subscribe((c) => console.log(SessionReset.match(c.event) && c.event.payload, c.changed)); // Logs: { to: 'empty' } [ 'messages' ]
 * session.reset();
 * ```
 */
export const SessionReset = /* @__PURE__ */ defineEventUnchecked<{ readonly to: 'empty' | 'initial' }>('rxslice.session.reset');
/**
 * `rxslice.session.restored`: `session.restore(snapshot)` replaced the named slices with the
 * snapshot's items, as one event (`fromSeq` is the snapshot's `seq`, `snapshotId` its `id`, which
 * later snapshots of the session name as their parent). See {@link SliceSeeded}.
 * @example
 * ```ts
 * const before = session.snapshot({ tag: 'checkpoint' });
 * session.committed$.pipe(ofType(SessionRestored)).subscribe((c) => console.log(c.event.payload));
 * session.restore(before); // Logs: { slices: [ 'usage' ], fromSeq: 4, tag: 'checkpoint', snapshotId: '…' }
 * ```
 */
export const SessionRestored = /* @__PURE__ */ defineEventUnchecked<{
  readonly slices: readonly string[];
  readonly fromSeq: number;
  readonly tag?: string | undefined;
  /** The restored snapshot's `id` (absent when it had none, e.g. a hand-made object without one). */
  readonly snapshotId?: string | undefined;
}>('rxslice.session.restored');

/**
 * @internal Marks the events made by {@link InitializeSlice} and {@link ClearSlice}: the only
 * `rxslice.*` events `dispatch` takes from user code (a plain object with a reserved type, as
 * JSON from outside would give, has no such key and is refused: it could forge a library event).
 */
export const SLICE_COMMAND: unique symbol = Symbol('rxslice.sliceCommand');

/**
 * A library event made by {@link InitializeSlice} or {@link ClearSlice} for `session.dispatch`.
 * Its brand (a symbol key, which JSON cannot carry) is what makes `dispatch` accept its reserved
 * type; the session validates it as `seed` and `clear` do and dispatches the same audited event.
 */
export type SliceCommand<TType extends string = string, TPayload = unknown> = Event<TType, TPayload> & { readonly [SLICE_COMMAND]: true };

/**
 * The slice commands `session.dispatch` takes beside the session's own events: every type starts
 * with `rxslice.slice.`. A template literal rather than `string`, so that `dispatch` keeps the
 * literal type of what it is given and a misspelled event type is named in the compile error
 * (`Type '"todo/addd"' is not assignable to type '"todo/added" | ...'. Did you mean '"todo/added"'?`).
 */
export type AnySliceCommand = SliceCommand<`rxslice.slice.${string}`>;

/**
 * The seed's `InitializeSlice(Plan, (initial_plan,))`: an event that, dispatched, does exactly
 * what `session.slice(def).seed(items)` does — validates `items` with the slice's schema (copied,
 * checked to be JSON data, frozen) and dispatches `rxslice.slice.seeded` with the library's
 * `meta`, replacing the slice's items. Dispatched as a plain object (`{ type:
 * 'rxslice.slice.seeded', ... }`), the same event is refused with `ReservedEventTypeError`.
 * @throws from `dispatch`: `SliceNotRegisteredError` when the slice is not in the session;
 * `InvalidSliceItemError` when an item fails the schema or is not JSON data (nothing changes).
 * @example
 * ```ts
 * session.dispatch(InitializeSlice(Plan, [{ steps: ['read', 'fix'] }]));
 * session.slice(Plan).latest(); // { steps: ['read', 'fix'] }
 * ```
 */
export function InitializeSlice<TItem>(
  slice: SliceDef<string, TItem>,
  items: readonly TItem[],
): SliceCommand<'rxslice.slice.seeded', { readonly slice: string; readonly items: readonly TItem[] }> {
  return { type: 'rxslice.slice.seeded', payload: { slice: slice.name, items }, [SLICE_COMMAND]: true };
}

/**
 * The seed's `ClearSlice(Plan)`: an event that, dispatched, does exactly what
 * `session.slice(def).clear()` does (`rxslice.slice.cleared`). See {@link InitializeSlice}.
 * @throws from `dispatch`: `SliceNotRegisteredError` when the slice is not in the session.
 * @example
 * ```ts
 * session.dispatch(ClearSlice(Plan));
 * session.slice(Plan).isEmpty; // true
 * ```
 */
export function ClearSlice<TItem>(slice: SliceDef<string, TItem>): SliceCommand<'rxslice.slice.cleared', { readonly slice: string }> {
  return { type: 'rxslice.slice.cleared', payload: { slice: slice.name }, [SLICE_COMMAND]: true };
}

/**
 * The `meta` of every event the library dispatches itself (`{ source: 'rxslice' }`, frozen: one
 * object shared by all of them).
 */
export const LIBRARY_META = Object.freeze({ source: 'rxslice' });
