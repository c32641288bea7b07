// Public surface of rxslice. Named re-exports only: this file is the API at a glance.

export { RxSliceError, isRxSliceError, SubscriberError } from './internal/errors';
export type { RxSliceErrorCode, ValidationIssue } from './internal/errors';

export { defineEvent, ReservedEventTypeError } from './events/define-event';
export { defineChannel, InvalidChannelError } from './events/define-channel';
export type { ChannelDef, AnyChannelDef, ChannelOptions, InferChannelEvent } from './events/define-channel';
export { ChannelReplayError } from './events/channel-runtime';
export type { Channel, EnvelopeSource, ReplayOptions } from './events/channel-runtime';
export type { Event, EventCreator, InferEvent, InferPayload, AnyEventCreator } from './events/event';
export type { Envelope, EnvelopeMeta } from './events/envelope';
export { ofType } from './events/of-type';

export { defineSlice, InvalidSliceDefinitionError } from './slices/define-slice';
export type { SliceConfig } from './slices/define-slice';
export { migrateItems, SliceVersionError, MigrationError } from './slices/migrations';
export type { SliceMigrations } from './slices/migrations';
export { on } from './slices/reducer';
export type {
  Reducer,
  ReducerContext,
  ReducerEntry,
  ReducerOptions,
  ReducerMiddleware,
  SessionReader,
  SliceDef,
  SlicePolicy,
  InferItem,
  InferSliceEvent,
  ReducerEvent,
} from './slices/reducer';
export type { ReducerBuilder } from './slices/reducer-builder';
export { onLatest, produceLatest, NoLatestItemError } from './slices/latest-reducers';
export { appendAll, replaceLatest, replaceLatestBy, upsertBy } from './slices/helper-reducers';
export type { SelectItem, SelectItems, UncalledHelperReducer } from './slices/helper-reducers';
export { append, extend, replace, updateAt, clear, none, withEffects } from './slices/slice-op';
export type { SliceOp, ItemPredicate } from './slices/slice-op';
export type { EventMiddleware } from './session/event-pipeline';
export type { MiddlewareSet } from './session/middleware-set';
export { defineMiddleware } from './session/define-middleware';
export { validationMiddleware } from './session/validation-middleware';
export type { ValidationRule, CheckedValidationRule } from './session/validation-middleware';
export type { SliceView } from './slices/slice-view';
export type { SliceWindowPolicy, WindowContext, WindowMemo, EvictionDecision } from './slices/window-contract';
// The eviction contract lives beside the window contract (slices/ sits below windows/); the
// `EvictionPolicy` name is the value of windows/eviction-policy and its type alias of this contract.
export type { EvictionPolicy as EvictionPolicyContract } from './slices/window-contract';

export { MemoryStorage, memory } from './storage/memory-storage';
export type { MemoryStorageOptions } from './storage/memory-storage';
export { defineDurableStorage } from './session/journal-layer';
export type { SliceStorage, StorageTransaction, StorageFactory, StoredSlice, StorageJournal, HeldJournal, StoredSliceDef } from './storage/slice-storage';

export { SNAPSHOT_FORMAT_VERSION } from './snapshots/snapshot';
export type { SnapshotSlice, SnapshotJSON } from './snapshots/snapshot';
export { Snapshot, SnapshotOperationError, type SnapshotDiff, type SliceChange } from './snapshots/snapshot-ops';
export { snapshotFromJSON, InvalidSnapshotError, UnknownSliceError, DEFAULT_SNAPSHOT_MAX_DEPTH } from './snapshots/codec';
export type { SnapshotReadLimits } from './snapshots/codec';

export { createSession } from './store/create-session';
export type { Session, SessionOptions } from './store/create-session';
export { createStore } from './store/create-store';
export type { Store, StoreOptions, LayerMethods } from './store/create-store';
export { takeSnapshot, restoreSnapshot, transaction, findSnapshots, snapshotLineage } from './store/snapshot-functions';
export type { SnapshotHost } from './store/snapshot-functions';
export type {
  Session as CoreSession,
  SessionOptions as CoreSessionOptions,
  SessionEvent,
  ValidationMode,
  EvictedItems,
  SnapshotOptions,
  SliceRef,
  SnapshotMethodName,
  CoreStore,
  ResetOptions,
} from './session/session-types';
export type { CommittedEnvelope } from './session/committed-envelope';
export type { SessionItems } from './session/session-read';
export type { SliceHandle, SliceRuntimeConfig, SliceUpdate } from './session/slice-handle';
export {
  InvalidEventError,
  UnknownEventError,
  ReducerError,
  DispatchInReducerError,
  SessionDisposedError,
  SliceNotRegisteredError,
  DuplicateSliceError,
  InvalidSliceItemError,
  StorageFailedError,
  StorageAheadError,
  SagaRuntimeMissingError,
  NoSnapshotStoreError,
  InvalidSnapshotCatalogueOptionError,
  SnapshotSaveError,
  InvalidMiddlewareError,
  InvalidListenerError,
} from './session/errors';
export { SliceSeeded, SliceCleared, SliceAppended, SliceLatestReplaced, SliceInstalled, SessionReset, SessionRestored, InitializeSlice, ClearSlice } from './session/system-events';
export type { SliceCommand, AnySliceCommand } from './session/system-events';
export { installSlice } from './session/install-slice';
export type { InstallSliceOptions } from './session/install-slice';
export type { Attachable } from './session/session-types';
// Types only: what session.findSnapshots takes and answers (the store itself is rxslice/snapshot-store).
export type { SnapshotQuery } from './snapshot-store/read-query';
export type { SnapshotCatalogueOptions } from './snapshot-store/snapshot-catalogue';
export type { SnapshotInfo } from './snapshot-store/store-contract';

export { SliceWindow } from './windows/slice-window';
export type { BoundedWindowOptions, TimeWindowOptions } from './windows/slice-window';
export { EvictionPolicy } from './windows/eviction-policy';
export type { EvictionKind } from './windows/eviction-policy';
export { InvalidWindowError } from './windows/invalid-window-error';

export { defineComputed } from './computed/define-computed';
export type { ComputedDef, ComputedOptions, ComputedSource, IncrementalFold, IncrementalOptions, InferComputed, SourceValue, SourceValues } from './computed/define-computed';
export { defineComputedFamily, DEFAULT_FAMILY_CACHE_SIZE } from './computed/define-computed-family';
export type { ComputedFamilyDef, ComputedFamilyOptions, FamilyKey } from './computed/define-computed-family';
export { computed } from './computed/computed';
export type { ComputedHandle } from './computed/computed';
export { computedFamily } from './computed/computed-family';
export type { ComputedFamily } from './computed/computed-family';
export { ComputedReadOnlyError, ComputedError, InvalidComputedError } from './computed/computed-errors';

export { defineEffect } from './effects/define-effect';
export type { Effect, EffectDef, AnyEffectDef, EffectOptions, EffectInstanceOptions, EffectRunOptions, Concurrency, InferEffect, InferEffectResult } from './effects/define-effect';
export { RetryPolicy, InvalidRetryPolicyError, EXPONENTIAL_RETRY_DEFAULTS } from './effects/retry-policy';
export type { ExponentialRetryOptions, Jitter, RetrySpec } from './effects/retry-policy';
export { seededRandom } from './effects/seeded-random';
export type { RandomSource } from './effects/seeded-random';
export type { EffectContext, EffectHandler } from './effects/effect-handler';
export type { EffectRegistration } from './effects/effect-runtime';
export { handleEffect, runEffect, effects$ } from './effects/handle-effect';
export { all, race, sequence, isCompositeEffect } from './effects/compose';
export type { AllEffect, RaceEffect, SequenceEffect, CompositeEffect, SequenceStep } from './effects/compose';
export { runEpic, installEpics } from './effects/epic';
export { listen } from './effects/listen';
export type { ListenerApi, ListenOptions } from './effects/listen';
export type { Epic, EpicOptions, EpicHandle } from './effects/epic';
export { installEffects } from './effects/install-effects';
export type { InstallEffectsOptions, SessionEffects } from './effects/install-effects';
export {
  EffectStarted,
  EffectSucceeded,
  EffectRetrying,
  EffectFailed,
  EffectCompensated,
  EffectCancelled,
  EffectDropped,
} from './effects/lifecycle-events';
export type { ErrorInfo, EffectRef, EffectFailedPayload } from './effects/lifecycle-events';
export {
  EffectFailedError,
  EffectTimeoutError,
  EffectCancelledError,
  MissingEffectHandlerError,
  DuplicateEffectHandlerError,
  EpicFailedError,
  InvalidEpicOutputError,
  InvalidEffectDefinitionError,
  InvalidEffectOptionsError,
} from './effects/errors';
export type { EffectFailureStage } from './effects/errors';

export {
  assign,
  block,
  cancel,
  effect,
  log,
  raise,
  send,
  availableTransitions,
  canTransition,
  explainTransition,
  refuse,
  defineMachine,
  setupMachine,
  MachineSlicesUnavailableError,
  InvalidMachineError,
  InvalidTransitionError,
  InvalidMachineActionError,
  MachineNotRunningError,
  MachineNotInstalledError,
  eventMatches,
  createMachineActor,
  matches,
  advanceTime,
  initialTransition,
  transition,
  toMermaid,
  targetlessTransitions,
  installMachine,
  sessionMachine,
  MachineTimerFired,
} from './machines/index';
// SCXML import (fromSCXML, compileExpression and their errors) is the rxslice/scxml entry:
// it needs fast-xml-parser and jsep, which the core does not install.
export type {
  ActionArgs,
  MachineAction,
  AssignAction,
  RaiseAction,
  SendAction,
  CancelAction,
  EffectAction,
  LogAction,
  BlockAction,
  DynamicAction,
  ValueOrFn,
  Guard,
  GuardRefusal,
  GuardResult,
  SendOptions,
  AvailableTransition,
  AvailableTransitionsOptions,
  BlockedTransition,
  EnabledTransition,
  IntrospectionOptions,
  ExplainOptions,
  TransitionDecision,
  ConsideredTransition,
  TransitionVerdict,
  EffectPayloadArgs,
  MachineSlices,
  MachineSetup,
  MachineSetupInput,
  EffectPayload,
  MachineLog,
  MachineActor,
  MachineActorOptions,
  InvalidTransitionPolicy,
  MachineConfig,
  StateConfig,
  TransitionConfig,
  MachineTransitionConfig,
  InitialSpec,
  Actions,
  Targets,
  TransitionSpec,
  StateNode,
  StateNodeKind,
  TransitionNode,
  MachineTypes,
  ContextOf,
  EventTypeOf,
  MachineDefinition,
  StateIdOf,
  MachineEffect,
  MachineEvent,
  MachineEventKind,
  DelayedSend,
  MachineSnapshot,
  TransitionOptions,
  TransitionResult,
  SessionMachine,
  TargetlessTransition,
  ToMermaidOptions,
} from './machines/index';

export { defineSaga, step, type SagaBuilder, type SagaBuilderConfig, type SagaChain } from './sagas/define-saga';
export type {
  SagaDef,
  AnySagaDef,
  NewStepName,
  SagaStep,
  AnySagaStep,
  SagaConfig,
  StepConfig,
  StepOutput,
  SagaStepContext,
  SagaResults,
  InferSagaResult,
  InferSagaInput,
} from './sagas/define-saga';
export { runSaga, resumeSagas, installSagas, sagaHistory } from './sagas/run-saga';
export type { RunSagaOptions, ResumeSagasOptions, ResumedSaga } from './sagas/saga-runtime';
export { SagaProgressSlice } from './sagas/saga-progress';
export type { SagaProgress, CompletedStep } from './sagas/saga-progress';
export { SagaHistorySlice, DEFAULT_SAGA_HISTORY } from './sagas/saga-history';
export type { SagaRecord, SagaStepRecord, SagaHistoryOptions } from './sagas/saga-history';
export {
  SagaStarted,
  SagaStepStarted,
  SagaStepRetrying,
  SagaStepSucceeded,
  SagaStepFailed,
  SagaCompensating,
  SagaStepCompensated,
  SagaCompensationFailed,
  SagaCompensationRetrying,
  SagaCompleted,
  SagaFailed,
} from './sagas/saga-events';
export type { SagaRef } from './sagas/saga-events';
export {
  InvalidSagaDefinitionError,
  InvalidSagaInputError,
  SagaFailedError,
  SagaCompensationFailedError,
  SagaStepTimeoutError,
  SagaCancelledError,
  SagaStepNotCompletedError,
  DuplicateSagaError,
  UnknownSagaError,
  SagaNotRecordedError,
  InvalidSagaHistoryError,
} from './sagas/errors';

export { defineState, field, add, dictMerge, setUnion, overwrite, InvalidUpdateError } from './state/define-state';
export type { StateDef, StateFields, StateValue, StateUpdate, Field, FieldReducer, Overwrite } from './state/define-state';
export { createCheckpointer } from './state/checkpointer';
export { memoryCheckpoints, CheckpointError } from './state/checkpoint-storage';
export type { Checkpointer, Checkpoint, HistoryOptions } from './state/checkpointer';
export type { CheckpointMetadata, CheckpointRecord, CheckpointStorage, ThreadRecordStorage } from './state/checkpoint-storage';
