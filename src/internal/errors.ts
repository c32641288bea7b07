/**
 * Error codes carried by every {@link RxSliceError}. Codes are stable strings: match on
 * them rather than on messages or class identity.
 */
export type RxSliceErrorCode =
  | 'INVALID_EVENT'
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
  | 'SCXML_UNSUPPORTED'
  | 'SCXML_INVALID'
  | 'INVALID_EXPRESSION'
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
  override readonly name: string = 'RxSliceError';
  readonly code: RxSliceErrorCode;

  constructor(code: RxSliceErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
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

/** One validation problem, as zod reports it (code, path, message). */
export interface ValidationIssue {
  readonly code: string;
  readonly path: readonly PropertyKey[];
  readonly message: string;
}

/** Formats validation issues as `path: message; path: message` for error messages. */
export function formatIssues(issues: readonly ValidationIssue[]): string {
  return issues
    .slice(0, 5)
    .map((i) => `${i.path.length > 0 ? i.path.map(String).join('.') : '(root)'}: ${i.message}`)
    .join('; ')
    .concat(issues.length > 5 ? `; and ${issues.length - 5} more` : '');
}

/** Copies zod issues into plain data (code, path, message). */
export function toIssues(
  issues: readonly { code: string; path: readonly PropertyKey[]; message: string }[],
): ValidationIssue[] {
  return issues.map((i) => ({ code: i.code, path: [...i.path], message: i.message }));
}
