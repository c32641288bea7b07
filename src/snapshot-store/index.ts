// Entry point rxslice/snapshot-store: a catalogue of snapshots (find by tag glob, time and slice;
// lineage; retention). Works in browsers; picomatch is its optional peer dependency.
// Named re-exports only: this file is the entry's API at a glance.

export { createSnapshotStore, memorySnapshots } from './snapshot-store';
export type { SnapshotQuery, SnapshotStore, RetentionOptions } from './snapshot-store';
export { isStorableId, SnapshotStoreError } from './store-contract';
export type { SnapshotInfo, SnapshotStoreBackend } from './store-contract';
