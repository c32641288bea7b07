import { defineEventUnchecked } from '../events/define-event';

/**
 * The library's own events for changes that do not come from user reducers. They go through
 * the same pipeline (envelope, operator middleware, commit, `committed$`), so every change
 * to a slice is auditable from the event stream.
 */
export const SliceSeeded = defineEventUnchecked<{ readonly slice: string; readonly items: readonly unknown[] }>(
  'rxslice.slice.seeded',
);
export const SliceCleared = defineEventUnchecked<{ readonly slice: string }>('rxslice.slice.cleared');
export const SessionReset = defineEventUnchecked<void>('rxslice.session.reset');
export const SessionRestored = defineEventUnchecked<{
  readonly slices: readonly string[];
  readonly fromSeq: number;
  readonly tag?: string | undefined;
}>('rxslice.session.restored');
