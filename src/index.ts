// Public surface of rxslice. Named re-exports only: this file is the API at a glance.

export { RxSliceError, isRxSliceError } from './internal/errors';
export type { RxSliceErrorCode, ValidationIssue } from './internal/errors';

export { defineEvent, ReservedEventTypeError } from './events/define-event';
export type { Event, EventCreator, InferEvent, InferPayload, AnyEventCreator } from './events/event';
export type { Envelope, EnvelopeMeta } from './events/envelope';
export { ofType } from './events/of-type';

export { defineSlice, InvalidSliceDefinitionError } from './slices/define-slice';
export type { SliceConfig } from './slices/define-slice';
export { on } from './slices/reducer';
export type {
  Reducer,
  ReducerContext,
  ReducerEntry,
  ReducerMiddleware,
  SessionReader,
  SliceDef,
  SlicePolicy,
  InferItem,
} from './slices/reducer';
export type { ReducerBuilder } from './slices/reducer-builder';
export { onLatest, produceLatest, NoLatestItemError } from './slices/latest-reducers';
export { appendAll, replaceLatest, replaceLatestBy, upsertBy } from './slices/helper-reducers';
export { append, extend, replace, clear, none, withEffects } from './slices/slice-op';
export type { SliceOp } from './slices/slice-op';
export type { SliceView } from './slices/slice-view';
export type { SliceWindowPolicy, WindowContext, EvictionDecision } from './slices/window-contract';

export { MemoryStorage, memory } from './storage/memory-storage';
export type { SliceStorage, StorageTransaction, StorageFactory, StoredSlice } from './storage/slice-storage';

export { SNAPSHOT_FORMAT_VERSION } from './snapshots/snapshot';
export type { Snapshot, SnapshotSlice, SnapshotJSON } from './snapshots/snapshot';
export { snapshotFromJSON, InvalidSnapshotError, UnknownSliceError } from './snapshots/codec';
export type { SnapshotReadLimits } from './snapshots/codec';

export { createSession } from './session/create-session';
export type {
  Session,
  SessionOptions,
  ValidationMode,
  CommittedEnvelope,
  EvictedItems,
  SnapshotOptions,
} from './session/create-session';
export type { SliceHandle, SliceRuntimeConfig } from './session/slice-handle';
export {
  InvalidEventError,
  ReducerError,
  DispatchInReducerError,
  SessionDisposedError,
  SliceNotRegisteredError,
  DuplicateSliceError,
  InvalidSliceItemError,
} from './session/errors';
export { SliceSeeded, SliceCleared, SessionReset, SessionRestored } from './session/system-events';
