import { RxSliceError } from '../internal/errors';
import { clip, messageOf, quote } from '../internal/quote';

/**
 * Why a file was set aside into `rejected/`: `'not-json'` (does not parse), `'not-a-signal'` (JSON,
 * but not a signal file's envelope), `'wrong-channel'` (a signal of another channel), `'schema'`
 * (the signal fails the channel's zod schema; `issues` says where), `'bad-name'` (a `.json` file
 * not named as a signal; nothing orders it), `'partial'` (a temp file older than `staleTempMs`: its
 * writer died before the rename).
 */
export type SignalRejectionReason = 'not-json' | 'not-a-signal' | 'wrong-channel' | 'schema' | 'bad-name' | 'partial';

/**
 * Reported on `SignalDirectory.errors$` (never thrown by a poll) when a file of the directory was
 * not a valid signal: it was moved, unchanged, to `rejectedPath` (with a `.reason.json` beside it),
 * so it is never lost and never read again.
 */
export class SignalFileRejectedError extends RxSliceError {
  override readonly name = 'SignalFileRejectedError';
  constructor(
    /** Where the file was found. */
    readonly path: string,
    readonly reason: SignalRejectionReason,
    /** Where it is now: `<dir>/rejected/<name>~<random>`. */
    readonly rejectedPath: string,
    detail: string,
    /** zod's issues (code, path, message) for `reason: 'schema'`; empty otherwise. */
    readonly issues: readonly { readonly code: string; readonly path: readonly PropertyKey[]; readonly message: string }[] = [],
  ) {
    super('SIGNAL_FILE_REJECTED', `Signal file ${quote(path)} set aside (${reason}): ${clip(detail, 1000)}. It was moved unchanged to ${quote(rejectedPath)}; fix it and move it back to publish it again.`);
  }
}

/**
 * A claimed signal was no longer where its claimer left it when it came to archive, release or
 * renew it: its lease ran out (or its owner was judged dead) and another poller returned it to
 * the queue. The signal is not lost; it will be (or was) handled again.
 */
export class SignalClaimLostError extends RxSliceError {
  override readonly name = 'SignalClaimLostError';
  constructor(readonly path: string, operation: 'archive' | 'release' | 'renew') {
    super(
      'SIGNAL_CLAIM_LOST',
      `Could not ${operation} ${quote(path)}: the file is gone. Another poller took it (a pending signal), or returned the claim to the queue after its lease ran out; renew() claims held longer than leaseMs.`,
    );
  }
}

/** Thrown when the file system fails under a signal directory operation (permissions, disk full); `cause` is the system error. */
export class SignalDirectoryError extends RxSliceError {
  override readonly name = 'SignalDirectoryError';
  constructor(readonly path: string, operation: string, cause: unknown) {
    super('SIGNAL_IO', `Signal directory: could not ${operation} ${quote(path)}: ${messageOf(cause)}`, { cause });
  }
}

/** The error of `SignalDirectory.watch(handler)` when the handler failed: the signal was returned to the queue. `cause` is the handler's error. */
export class SignalHandlerError extends RxSliceError {
  override readonly name = 'SignalHandlerError';
  constructor(readonly signalId: string, cause: unknown) {
    super(
      'SIGNAL_HANDLER_FAILED',
      `The handler failed on signal ${quote(signalId)} (${messageOf(cause)}); the signal was returned to the queue. Resubscribe (e.g. retry({ delay: 1000 })) to handle it again.`,
      { cause },
    );
  }
}
