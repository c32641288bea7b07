import type { SnapshotQuery } from '../snapshot-store/read-query';
import type { SnapshotInfo } from '../snapshot-store/store-contract';
import type { Snapshot } from '../snapshots/snapshot';
import type { SliceRef, SnapshotOptions } from '../session/session-types';
import { snapshotLayer, type SnapshotHost } from '../session/snapshot-layer';

// The snapshot layer as functions (docs/SIZE.md): they work on a store (`createStore`) and on a
// session (`createSession`, whose methods they equal), and a bundle holds the snapshot code, the
// codec's checks and the catalogue only when the app imports one of them. The first call on a
// store links the layer into it (idempotent); everything after behaves as on a session.

export type { SnapshotHost } from '../session/snapshot-layer';

/**
 * Captures the state slices of `store` (and its logs with `includeLogs`), or the slices `include`
 * names minus those `exclude` names, in O(number of slices): items are shared, never copied. The
 * same as `session.snapshot(options)`: catalogued by the store's catalogue (or saved to its
 * `snapshotStore`), `parents` naming the snapshot last restored (lineage).
 *
 * @remarks Synchronous. The first snapshot function called on a store links the snapshot layer
 * into it and reads its `snapshotStore` / `snapshotCatalogue` options.
 * @throws `UnknownSliceError` (`where: 'session'`) for a slice the store does not have;
 * `InvalidSnapshotError` when `include` and `exclude` share a slice or hold something that is
 * neither a slice definition nor a name; `InvalidSnapshotStoreOptionError` /
 * `InvalidSnapshotCatalogueOptionError` on the first call when those options are bad; TypeError
 * when `store` is not a store or session.
 * @example
 * ```ts
 * const store = createStore({ slices: [Plan] });
 * const before = takeSnapshot(store, { tag: 'plan:v1' });
 * before.slices.plan.items; // the plan's items, shared with the store
 * ```
 */
export function takeSnapshot(store: SnapshotHost, options?: SnapshotOptions): Snapshot {
  return snapshotLayer(store).snapshot(options);
}

/**
 * Restores the snapshot's slices (or the named subset) into `store` as one audited
 * `rxslice.session.restored` event, all or nothing: the same as `session.restore(snapshot, options)`.
 * A snapshot the store took restores in O(number of slices); any other one (from JSON, another
 * session's definitions, a hand-made object) has its items validated and copied first.
 *
 * @remarks Synchronous: when it returns, the slices hold the snapshot's items and subscribers were
 * told (queued behind the event being processed when called from a subscriber).
 * @throws `UnknownSliceError` when a name is not registered, or not in the snapshot;
 * `InvalidSliceItemError` for an item that fails its slice's schema; `InvalidSnapshotError` when
 * `snapshot` is not a snapshot; `SessionDisposedError` after `dispose()`;
 * `UnsupportedOnSharedSessionError` on a shared session. Nothing changes then.
 * @example
 * ```ts
 * const before = takeSnapshot(store);
 * store.dispatch(StepAdded({ step: 'b' }));
 * restoreSnapshot(store, before); // one rxslice.session.restored event; Plan is back to what it was
 * ```
 */
export function restoreSnapshot(store: SnapshotHost, snapshot: Snapshot, options?: { readonly slices?: readonly SliceRef[] }): void {
  snapshotLayer(store).restore(snapshot, options);
}

/**
 * Runs `fn` and, when it throws (or its promise rejects), restores the state slices of `store` to
 * what they were before it (one audited restore; logs are kept): the same as
 * `session.transaction(fn)`. Returns what `fn` returns. Nested transactions roll back to their
 * own start.
 *
 * @remarks Synchronous for a synchronous `fn`; for a promise, the rollback happens when it
 * rejects, and the returned promise rejects with the same error.
 * @throws what `fn` throws (after the rollback); `SessionDisposedError` after `dispose()`;
 * `UnsupportedOnSharedSessionError` on a shared session.
 * @example
 * ```ts
 * try {
 *   transaction(store, () => {
 *     store.dispatch(StepAdded({ step: 'risky' }));
 *     throw new Error('tool failed');
 *   });
 * } catch {
 *   store.slice(Plan).size; // as before the transaction
 * }
 * ```
 */
export function transaction<TResult>(store: SnapshotHost, fn: () => TResult): TResult {
  return snapshotLayer(store).transaction(fn);
}

/**
 * The snapshots `store` took matching `query` (tag glob, time range, slice, `limit`), newest first,
 * from its catalogue or snapshot store: the same as `session.findSnapshots(query)`.
 *
 * @remarks Asynchronous; the catalogue's query code is a lazy chunk loaded by the first query.
 * @throws (rejects) `NoSnapshotStoreError` when the store keeps no catalogue
 * (`snapshotCatalogue: false`, no store); `SnapshotStoreError` for a malformed query.
 * @example
 * ```ts
 * takeSnapshot(store, { tag: 'tool:search' });
 * (await findSnapshots(store, { tag: 'tool:*' })).map((i) => i.tag); // ['tool:search']
 * ```
 */
export function findSnapshots(store: SnapshotHost, query?: SnapshotQuery): Promise<SnapshotInfo[]> {
  return snapshotLayer(store).find(query);
}

/**
 * The lineage of `snapshot` (or of the stored snapshot of that id), oldest first, ending with the
 * snapshot itself: the same as `session.snapshotLineage(snapshot)`.
 *
 * @remarks Asynchronous; its code is a lazy chunk loaded by the first call.
 * @throws (rejects) `NoSnapshotStoreError` when the store keeps no catalogue; `SnapshotStoreError`
 * (`SNAPSHOT_NOT_FOUND`) for an id it does not hold; `InvalidSnapshotError` for something that is
 * neither a snapshot nor an id.
 * @example
 * ```ts
 * const v1 = takeSnapshot(store, { tag: 'v1' });
 * restoreSnapshot(store, v1);
 * const v2 = takeSnapshot(store, { tag: 'v2' });
 * (await snapshotLineage(store, v2)).map((i) => i.tag); // ['v1', 'v2']
 * ```
 */
export function snapshotLineage(store: SnapshotHost, snapshot: Snapshot | string): Promise<SnapshotInfo[]> {
  return snapshotLayer(store).lineage(snapshot);
}
