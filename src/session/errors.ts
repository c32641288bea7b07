import type { Envelope } from '../events/envelope';
import { formatIssues, RxSliceError, type ValidationIssue } from '../internal/errors';

/** Thrown by `dispatch` when an event's payload fails its schema. Nothing changes. */
export class InvalidEventError extends RxSliceError {
  override readonly name = 'InvalidEventError';
  constructor(readonly eventType: string, readonly issues: readonly ValidationIssue[]) {
    super(
      'INVALID_EVENT',
      `Event "${eventType}" has an invalid payload (${formatIssues(issues)}). Nothing was changed; fix the payload to match the event's schema.`,
    );
  }
}

/**
 * Thrown by `dispatch` (and reported on `errors$`) when a reducer or reducer middleware
 * throws. `cause` is the original error; no slice changed for this event.
 */
export class ReducerError extends RxSliceError {
  override readonly name = 'ReducerError';
  constructor(
    readonly envelope: Envelope,
    readonly sliceName: string,
    readonly reducerName: string,
    cause: unknown,
  ) {
    super(
      'REDUCER_FAILED',
      `Reducer "${reducerName}" of slice "${sliceName}" failed on "${envelope.event.type}" (seq ${envelope.seq}): ${
        cause instanceof Error ? cause.message : String(cause)
      }. No slice was changed by this event.`,
      { cause },
    );
  }
}

/** Thrown when a reducer (or reducer middleware) calls `dispatch`. */
export class DispatchInReducerError extends RxSliceError {
  override readonly name = 'DispatchInReducerError';
  constructor(readonly eventType: string) {
    super(
      'DISPATCH_IN_REDUCER',
      `"${eventType}" was dispatched from inside a reducer. Reducers must be pure: return withEffects(op, [...]) or dispatch from an effect or subscriber instead.`,
    );
  }
}

/** Thrown when a disposed session is used. */
export class SessionDisposedError extends RxSliceError {
  override readonly name = 'SessionDisposedError';
  constructor(operation: string) {
    super('SESSION_DISPOSED', `Cannot ${operation}: the session was disposed. Create a new session with createSession().`);
  }
}

/** Thrown when a slice that is not part of the session is used. */
export class SliceNotRegisteredError extends RxSliceError {
  override readonly name = 'SliceNotRegisteredError';
  constructor(readonly sliceName: string) {
    super('SLICE_NOT_REGISTERED', `Slice "${sliceName}" is not registered. Pass it to createSession({ slices }).`);
  }
}

/** Thrown by `createSession` when two slices share a name. */
export class DuplicateSliceError extends RxSliceError {
  override readonly name = 'DuplicateSliceError';
  constructor(readonly sliceName: string) {
    super('DUPLICATE_SLICE', `Two slices are named "${sliceName}". Slice names must be unique within a session.`);
  }
}

/** Raised when an item does not match its slice's schema (seed, restore, reducer output). */
export class InvalidSliceItemError extends RxSliceError {
  override readonly name = 'InvalidSliceItemError';
  constructor(readonly sliceName: string, readonly index: number, readonly issues: readonly ValidationIssue[]) {
    super(
      'INVALID_SLICE_ITEM',
      `Item ${index} of slice "${sliceName}" does not match the slice's schema (${formatIssues(issues)}).`,
    );
  }
}
