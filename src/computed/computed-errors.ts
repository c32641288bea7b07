import { codedMessage } from '../internal/coded-message';
import { DEV } from '../internal/dev';
import { RxSliceError } from '../internal/errors';
import { messageOf, quote } from '../internal/quote';

/**
 * Thrown when a computed slice is used where a writable slice is expected: registered as a
 * slice of a session, given reducers, seeded or cleared. Computed slices are read-only:
 * change their sources instead.
 *
 * @example
 * ```ts
 * createSession({ slices: [Progress as never] }); // throws ComputedReadOnlyError (code COMPUTED_READ_ONLY)
 * ```
 */
export class ComputedReadOnlyError extends RxSliceError {
  override readonly name = 'ComputedReadOnlyError';
  constructor(
    /** The computed slice's name. */
    readonly computedName: string,
    operation: string,
  ) {
    super(
      'COMPUTED_READ_ONLY',
      !DEV
        ? codedMessage('E16', `${operation} ${quote(computedName)}`)
        : `Cannot ${operation} ${quote(computedName)}: it is a computed slice, which is read-only. Dispatch events to the slices it derives from, and read it with session.computed(def).`,
    );
  }
}

/**
 * Reported on `session.errors$` when a computed slice's `project` throws. The computed slice
 * keeps its previous value (and `latest()` throws this error when there never was one);
 * the session goes on. `cause` is the thrown value.
 */
export class ComputedError extends RxSliceError {
  override readonly name = 'ComputedError';
  constructor(
    /** The computed slice's name. */
    readonly computedName: string,
    cause: unknown,
  ) {
    super(
      'COMPUTED_FAILED',
      !DEV
        ? codedMessage('E17', `${quote(computedName)}: ${messageOf(cause)}`)
        : `Computed slice ${quote(computedName)} failed: ${messageOf(cause)}. Its previous value is kept; make its project function total (it must be pure and must not throw).`,
      { cause },
    );
  }
}

/** Thrown by `defineComputed` / `defineComputedFamily` for an empty name, a bad source or a bad cache size. */
export class InvalidComputedError extends RxSliceError {
  override readonly name = 'InvalidComputedError';
  constructor(
    /** The computed slice's name. */
    readonly computedName: string,
    reason: string,
  ) {
    super('INVALID_COMPUTED', `Computed slice ${quote(computedName)} is invalid: ${reason}`);
  }
}
