import { RxSliceError } from '../internal/errors';

/** Thrown by a checkpointer: an unknown thread or checkpoint, bad options, or a stored record that does not decode. */
export class CheckpointError extends RxSliceError {
  override readonly name = 'CheckpointError';
  constructor(code: 'CHECKPOINT_NOT_FOUND' | 'CHECKPOINT_CORRUPT' | 'INVALID_CHECKPOINT_OPTIONS', message: string, options?: { cause?: unknown }) {
    super(code, message, options);
  }
}

/** What each checkpoint records besides the state: where the step came from. */
export interface CheckpointMetadata {
  /** `'input'` (the first), `'loop'` (a step of the thread), `'update'` (`updateState`), `'fork'`. */
  readonly source: 'input' | 'loop' | 'update' | 'fork';
  /** The step number within the thread, from 0. */
  readonly step: number;
  /** The node (writer) of an `updateState`, if given. */
  readonly asNode?: string;
  /** Free-form JSON fields of the caller. */
  readonly [key: string]: unknown;
}

/** One stored checkpoint record: a delta (the step's updates) or a full value. JSON data. */
export interface CheckpointRecord {
  readonly id: string;
  readonly threadId: string;
  readonly parentId: string | null;
  readonly createdAt: number;
  readonly metadata: CheckpointMetadata;
  /** The step's partial updates (a delta), applied to the parent's value. */
  readonly updates?: readonly Readonly<Record<string, unknown>>[];
  /** The whole value (the first checkpoint of a thread, a fork, and periodic full records). */
  readonly values?: Readonly<Record<string, unknown>>;
}

/**
 * Where records of threads are kept, one append-only list per thread: the storage of a
 * checkpointer ({@link CheckpointStorage}) and of `RxSliceSaver` (`rxslice/langgraph`).
 * {@link memoryCheckpoints}, or `checkpointFiles(dir)` from `rxslice/storage/jsonl`.
 */
export interface ThreadRecordStorage<TRecord extends { readonly threadId: string }> {
  /** Appends `record` to its thread. */
  append(record: TRecord): void;
  /** Every record of `threadId`, oldest first (empty for an unknown thread). */
  read(threadId: string): readonly TRecord[];
  /** Replaces the records of `threadId` (retention). */
  rewrite(threadId: string, records: readonly TRecord[]): void;
  /** Removes the thread. */
  delete(threadId: string): void;
  /** Ids of every thread. */
  threads(): readonly string[];
  /** Bytes stored (as JSON), for the storage-growth figures. */
  bytes(): number;
}

/** Where a checkpointer keeps its records. */
export type CheckpointStorage = ThreadRecordStorage<CheckpointRecord>;

/** Records in memory, as JSON text (so what is read back is decoded, as from a file). */
export function memoryCheckpoints<TRecord extends { readonly threadId: string } = CheckpointRecord>(): ThreadRecordStorage<TRecord> {
  const byThread = new Map<string, string[]>();
  let bytes = 0;
  return {
    append: (r) => {
      const line = JSON.stringify(r);
      bytes += line.length + 1;
      const list = byThread.get(r.threadId);
      if (list === undefined) byThread.set(r.threadId, [line]);
      else list.push(line);
    },
    read: (threadId) => (byThread.get(threadId) ?? []).map((line) => JSON.parse(line) as TRecord),
    rewrite: (threadId, records) => {
      for (const line of byThread.get(threadId) ?? []) bytes -= line.length + 1;
      const lines = records.map((r) => JSON.stringify(r));
      for (const line of lines) bytes += line.length + 1;
      byThread.set(threadId, lines);
    },
    delete: (threadId) => {
      for (const line of byThread.get(threadId) ?? []) bytes -= line.length + 1;
      byThread.delete(threadId);
    },
    threads: () => [...byThread.keys()],
    bytes: () => bytes,
  };
}
