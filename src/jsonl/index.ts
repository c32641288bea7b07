// Entry point rxslice/storage/jsonl (Node only): durable files for sessions, and signal files
// between processes (a typed channel over a directory).
// Named re-exports only: this file is the entry's API at a glance.

export { saveSnapshot, saveSnapshotSync, loadSnapshot, fsyncDirectory, SnapshotFileError, SnapshotFileNotFoundError, NotASnapshotError } from './snapshot-file';
export type { LoadSnapshotOptions, IfSnapshotMissing } from './snapshot-file';
export type { SaveSnapshotOptions } from './snapshot-file';
export { snapshotDirectory } from './snapshot-directory';
export { checkpointFiles } from './checkpoint-files';
export { flightRecorder, FlightRecorderError } from './flight-recorder';
export type { FlightRecorder, FlightRecorderOptions, RecorderFsync } from './flight-recorder';
export { readRecording } from './read-recording';
export { readRecordingHeader, type RecordingHeader } from './recording-header';
export { RecordingError } from './recording-types';
export type { Recording, RecordedEnvelope, ReadRecordingOptions, TornTail } from './recording-types';
export { jsonl } from './jsonl-storage';
export { JsonlSliceStorage } from './jsonl-slice-storage';
export { StorageIOError } from './storage-io-error';
export type { JsonlStorageFactory } from './jsonl-storage';
export type { JsonlOptions, JsonlFsync } from './jsonl-options';
export type { JsonlRecoveryMode, JsonlRecovery } from './journal-recovery';
export { CorruptStorageError } from './journal-format';
export { StorageLockedError, StorageLockCompromisedError } from './directory-lock';
export type { LockHolder } from './directory-lock';
export { defineSignalChannel, InvalidSignalError } from './signal-channel';
export type { SignalChannelDef, InferSignal } from './signal-channel';
export { createSignalDirectory } from './signal-directory';
export { SIGNAL_FILE_FORMAT } from './signal-directory-types';
export type { SignalDirectory, SignalDirectoryOptions, SignalFile, ClaimedSignal, SignalHandler, WatchSignalsOptions } from './signal-directory-types';
export { SignalFileRejectedError, SignalClaimLostError, SignalDirectoryError, SignalHandlerError } from './signal-errors';
export type { SignalRejectionReason } from './signal-errors';
export { writeCompletionSignal, pollSignals, archiveSignal, CompletionSignal, AGENT_SIGNALS_DIR } from './completion-signals';
export type { CompletionSignalBody, CompletionSignalFile } from './completion-signals';
