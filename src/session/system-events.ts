import { defineEventUnchecked } from '../events/define-event';

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
export const SliceSeeded = defineEventUnchecked<{ readonly slice: string; readonly items: readonly unknown[] }>(
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
export const SliceCleared = defineEventUnchecked<{ readonly slice: string }>('rxslice.slice.cleared');
/**
 * `rxslice.session.reset`: `session.reset()` returned every slice to its `initial` items. See {@link SliceSeeded}.
 * @example
 * ```ts
 * session.committed$.subscribe((c) => console.log(SessionReset.match(c.event), c.changed)); // Logs: true [ 'messages' ]
 * session.reset();
 * ```
 */
export const SessionReset = defineEventUnchecked<void>('rxslice.session.reset');
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
export const SessionRestored = defineEventUnchecked<{
  readonly slices: readonly string[];
  readonly fromSeq: number;
  readonly tag?: string | undefined;
  /** The restored snapshot's `id` (absent when it had none, e.g. a hand-made object without one). */
  readonly snapshotId?: string | undefined;
}>('rxslice.session.restored');

/**
 * The `meta` of every event the library dispatches itself (`{ source: 'rxslice' }`, frozen: one
 * object shared by all of them).
 */
export const LIBRARY_META = Object.freeze({ source: 'rxslice' });
