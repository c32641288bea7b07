import { RxSliceError } from '../internal/errors';
import { messageOf, quote } from '../internal/quote';

const describe = messageOf;

/**
 * A shared session's PostgreSQL work failed: setting up the tables, appending, reading the log,
 * reading or writing a snapshot (`cause`: the driver's error). An append that failed with it
 * may or may not have committed when the connection broke during the commit: dispatch with an
 * `idempotencyKey` to retry safely.
 */
export class SharedLogError extends RxSliceError {
  override readonly name = 'SharedLogError';
  constructor(message: string, cause?: unknown) {
    super('SHARED_LOG_FAILED', cause === undefined ? `Shared session: ${message}.` : `Shared session: ${message}: ${describe(cause)}.`, cause === undefined ? undefined : { cause });
  }
}

/**
 * `dispatch(event, { expectedSeq })` found the session moved on: its last `seq` in the log is
 * `actualSeq`, not `expectedSeq`. Nothing was appended. Catch up (the session's state already
 * holds every event up to `actualSeq` once `catchUp()` resolves), decide again, and retry.
 * @example
 * ```ts
 * try {
 *   await session.dispatch(StepClaimed({ id: 3 }), { expectedSeq: session.lastSeq });
 * } catch (error) {
 *   if (error instanceof SeqConflictError) await session.catchUp(); // then decide again
 * }
 * ```
 */
export class SeqConflictError extends RxSliceError {
  override readonly name = 'SeqConflictError';
  constructor(
    readonly sessionId: string,
    readonly expectedSeq: number,
    readonly actualSeq: number,
  ) {
    super('SEQ_CONFLICT', `Session ${quote(sessionId)} is at seq ${actualSeq}, not the expected ${expectedSeq}: another process appended first. Nothing was appended; catch up and decide again.`);
  }
}

/**
 * Reported on `errors$` when the log of a session has a hole that does not fill: events above
 * `afterSeq` exist but `afterSeq + 1` does not (rows deleted by hand, or a log written by
 * something other than rxslice). The session never skips a gap: it stops applying there and
 * keeps waiting for the missing event.
 */
export class SharedLogGapError extends RxSliceError {
  override readonly name = 'SharedLogGapError';
  constructor(
    readonly sessionId: string,
    readonly afterSeq: number,
    readonly nextSeq: number,
  ) {
    super('SHARED_LOG_GAP', `Session ${quote(sessionId)}: the log holds seq ${nextSeq} but not ${afterSeq + 1}; events are applied in order only, so this session waits at seq ${afterSeq}.`);
  }
}
