import { RxSliceError } from '../internal/errors';
import { messageOf, quote } from '../internal/quote';

/** Thrown (wrapped in the session's `StorageFailedError`) when a write, fsync or compaction failed. */
export class StorageIOError extends RxSliceError {
  override readonly name = 'StorageIOError';
  constructor(readonly file: string, readonly operation: string, cause: unknown) {
    super('STORAGE_IO', `Storage ${operation} of ${quote(file)} failed: ${messageOf(cause)}. The failure is fatal; nothing more is written.`, { cause });
  }
}
