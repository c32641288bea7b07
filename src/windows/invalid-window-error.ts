import { RxSliceError } from '../internal/errors';
import { clip } from '../internal/quote';

/**
 * Thrown when a window or eviction policy is declared with impossible parameters
 * (a negative or fractional `maxItems`, a negative `maxAgeMs`, a non-integer seed, or
 * sampling inside a predicate window).
 *
 * @example
 * ```ts
 * SliceWindow.count(-1); // throws InvalidWindowError (code INVALID_WINDOW)
 * ```
 */
export class InvalidWindowError extends RxSliceError {
  override readonly name = 'InvalidWindowError';
  constructor(readonly window: string, reason: string) {
    super('INVALID_WINDOW', `Window ${clip(window)} is invalid: ${clip(reason, 1000)}`);
  }
}

/** @internal Checks that `value` is an integer >= 0 (item counts). */
export function checkCount(window: string, field: string, value: number): void {
  if (!Number.isSafeInteger(value) || value < 0) {
    throw new InvalidWindowError(window, `${field} must be an integer >= 0, got ${String(value)}.`);
  }
}
