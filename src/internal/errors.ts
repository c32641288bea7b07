import { codedMessage } from './coded-message';
import { DEV } from './dev';
import { clip, messageOf } from './quote';

/** The longest message an {@link RxSliceError} keeps (characters); longer ones are cut, with their length. */
const MAX_MESSAGE_CHARS = 8000;

/**
 * Error codes carried by every {@link RxSliceError}. Codes are stable strings: match on
 * them rather than on messages or class identity.
 */
export type RxSliceErrorCode =
  | 'INVALID_EVENT'
  | 'UNKNOWN_EVENT'
  | 'RESERVED_EVENT_TYPE'
  | 'REDUCER_FAILED'
  | 'DISPATCH_IN_REDUCER'
  | 'SESSION_DISPOSED'
  | 'SLICE_NOT_REGISTERED'
  | 'DUPLICATE_SLICE'
  | 'INVALID_SLICE_ITEM'
  | 'INVALID_SNAPSHOT'
  | 'UNKNOWN_SLICE'
  | 'COMPUTED_READ_ONLY'
  | 'COMPUTED_FAILED'
  | 'INVALID_WINDOW'
  | 'EFFECT_FAILED'
  | 'EFFECT_TIMEOUT'
  | 'MISSING_EFFECT_HANDLER'
  | 'INVALID_TRANSITION'
  | 'INVALID_MACHINE'
  | 'INVALID_MACHINE_ACTION'
  | 'SCXML_UNSUPPORTED'
  | 'SCXML_INVALID'
  | 'INVALID_EXPRESSION'
  | 'SUBSCRIBER_FAILED'
  | 'SLICE_VERSION_TOO_NEW'
  | 'SLICE_VERSION_INVALID'
  | 'MIGRATION_FAILED'
  | 'SNAPSHOT_FILE_NOT_FOUND'
  | 'SNAPSHOT_FILE_IO'
  | 'FLIGHT_RECORDER'
  | 'RECORDING_NOT_FOUND'
  | 'RECORDING_IO'
  | 'RECORDING_CORRUPT'
  | 'RECORDING_SEQ_OUT_OF_RANGE'
  | 'RECORDING_GAP'
  | 'INSPECTOR_LISTEN'
  | 'STORAGE_FAILED'
  | 'STORAGE_IO'
  | 'STORAGE_CORRUPT'
  | 'STORAGE_LOCKED'
  | 'STORAGE_LOCK_COMPROMISED'
  | 'STORAGE_AHEAD'
  | 'UNSUPPORTED_ON_SHARED_SESSION'
  | 'SEQ_CONFLICT'
  | 'SHARED_LOG_FAILED'
  | 'SHARED_LOG_GAP'
  | 'INVALID_MIDDLEWARE'
  | 'INVALID_LISTENER'
  | 'SAGA_RUNTIME_MISSING'
  | (string & {});

/**
 * Base class of every error rxslice throws or reports on `errors$`.
 *
 * @remarks `name` is a literal string so it survives minification; use
 * {@link isRxSliceError} rather than `instanceof` when two copies of the package may be
 * loaded. `cause` follows the ES2022 error-cause convention.
 * @example
 * ```ts
 * try { session.dispatch(Bad({})) } catch (e) { if (isRxSliceError(e)) console.log(e.code) } // Logs: INVALID_EVENT
 * ```
 */
export class RxSliceError extends Error {
  /** The class name as a literal string (survives minification), e.g. `'InvalidEventError'`. */
  override readonly name: string = 'RxSliceError';
  /** The stable error code (see {@link RxSliceErrorCode}): match on it rather than on messages. */
  readonly code: RxSliceErrorCode;

  constructor(code: RxSliceErrorCode, message: string, options?: { cause?: unknown }) {
    // Messages quote user input through quote/clip (src/internal/quote.ts); this bound is the
    // backstop for a message built some other way.
    super(message.length > MAX_MESSAGE_CHARS ? clip(message, MAX_MESSAGE_CHARS) : message, options);
    this.code = code;
  }
}

/**
 * True when `e` is an rxslice error (any subclass), also across duplicate package copies.
 *
 * @example
 * ```ts
 * isRxSliceError(new RxSliceError('X', 'y')); // true
 * isRxSliceError(new Error('plain'));         // false
 * ```
 */
export const isRxSliceError = (e: unknown): e is RxSliceError =>
  e instanceof Error && typeof (e as { code?: unknown }).code === 'string';

/**
 * Reported on `session.errors$` when a subscriber of a session observable (`events$`,
 * `committed$`, `evicted$`, a slice's `all$`/`latest$`, a computed `value$`) threw, or when
 * a chain piped from one of them failed and its subscriber had no `error` callback. `cause` is
 * the thrown error; `source` names the observable. The other subscribers got the value anyway,
 * the session is unaffected, and the failing subscriber stays subscribed (a failed chain ends,
 * as in RxJS).
 * @example
 * ```ts
 * session.errors$.subscribe((e) => console.log(e.code, (e as SubscriberError).source)); // Logs: SUBSCRIBER_FAILED committed$
 * session.committed$.subscribe(() => { throw new Error('bug') });
 * session.dispatch(StepAdded({ step: 'a' }));
 * ```
 */
export class SubscriberError extends RxSliceError {
  override readonly name = 'SubscriberError';
  constructor(
    /** The observable whose subscriber failed, e.g. `committed$`. */
    readonly source: string,
    cause: unknown,
  ) {
    super(
      'SUBSCRIBER_FAILED',
      !DEV
        ? codedMessage('E15', `${source}: ${messageOf(cause)}`)
        : `A subscriber of ${source} threw: ${messageOf(cause)}. The other subscribers got the value; the session is unaffected. Catch errors in the subscriber, or add catchError/an error callback to the chain.`,
      { cause },
    );
  }
}

/** One validation problem, as zod reports it (code, path, message). */
export interface ValidationIssue {
  /** zod's issue code, e.g. `invalid_type`. */
  readonly code: string;
  /** Where in the value the problem is: keys and array indices from the root. */
  readonly path: readonly PropertyKey[];
  /** zod's description of the problem. */
  readonly message: string;
}

/** Formats validation issues as `path: message; path: message` for error messages. */
export function formatIssues(issues: readonly ValidationIssue[]): string {
  return issues
    .slice(0, 5)
    .map((i) => `${i.path.length > 0 ? clip(i.path.map(String).join('.')) : '(root)'}: ${clip(i.message)}`)
    .join('; ')
    .concat(issues.length > 5 ? `; and ${issues.length - 5} more` : '');
}

/** Copies zod issues into plain data (code, path, message). */
export function toIssues(
  issues: readonly { code: string; path: readonly PropertyKey[]; message: string }[],
): ValidationIssue[] {
  return issues.map((i) => ({ code: i.code, path: [...i.path], message: i.message }));
}
