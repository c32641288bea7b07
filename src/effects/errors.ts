import { codedMessage } from '../internal/coded-message';
import { DEV } from '../internal/dev';
import { RxSliceError } from '../internal/errors';
import { clip, messageOf, quote } from '../internal/quote';


/** Where an effect failed: its handler (after the last attempt), its payload check, or one of its mapping callbacks. */
export type EffectFailureStage = 'handler' | 'validation' | 'onSuccess' | 'compensate';

/**
 * Reported on `errors$` when an effect fails for good: its handler failed on the last attempt
 * (`stage: 'handler'`, `cause` is the last error), its payload did not match the effect's
 * schema (`'validation'`), or its `onSuccess` / `compensate` callback threw.
 */
export class EffectFailedError extends RxSliceError {
  override readonly name = 'EffectFailedError';
  constructor(
    /** The failed effect's type. */ readonly effectType: string,
    /** The failed effect's id (unique in the session). */ readonly effectId: number,
    /** Where it failed: `'handler'`, `'validation'`, or the callback that threw. */ readonly stage: EffectFailureStage,
    /** Handler attempts made (0 when the payload or its options were invalid). */ readonly attempts: number,
    cause: unknown,
  ) {
    super(
      'EFFECT_FAILED',
      stage === 'handler'
        ? `Effect ${quote(effectType)} (#${effectId}) failed after ${attempts} attempt(s): ${messageOf(cause)}. ` +
            `Give it a retry policy or a compensate callback in defineEffect(type, schema, { retry, compensate }).`
        : `Effect ${quote(effectType)} (#${effectId}) failed in its ${stage} step: ${messageOf(cause)}.`,
      { cause },
    );
  }
}

/** The error an attempt fails with when it runs longer than the effect's `timeoutMs`. Retried like any handler error. */
export class EffectTimeoutError extends RxSliceError {
  override readonly name = 'EffectTimeoutError';
  constructor(
    /** The effect's type. */
    readonly effectType: string,
    /** The effect's timeout (ms of the session scheduler). */
    readonly timeoutMs: number,
    /** The attempt that timed out (1 for the first). */
    readonly attempt: number,
  ) {
    super(
      'EFFECT_TIMEOUT',
      `Attempt ${attempt} of effect ${quote(effectType)} did not finish within ${timeoutMs} ms and was cancelled. ` +
        `Raise timeoutMs (defineEffect's, or this instance's: Fx(payload, { timeoutMs })) or make the handler observe ctx.signal.`,
    );
  }
}

/** The reason of the `AbortSignal` of an attempt that was cancelled (switch concurrency, race loser, dispose, stop). */
export class EffectCancelledError extends RxSliceError {
  override readonly name = 'EffectCancelledError';
  constructor(
    /** The cancelled effect's type. */
    readonly effectType: string,
    /** The attempt that was running (1 for the first). */
    readonly attempt: number,
  ) {
    super('EFFECT_CANCELLED', `Attempt ${attempt} of effect ${quote(effectType)} was cancelled before it finished.`);
  }
}

/** Reported on `errors$` when an effect is requested but no handler is registered for its type. */
export class MissingEffectHandlerError extends RxSliceError {
  override readonly name = 'MissingEffectHandlerError';
  constructor(
    /** The effect type without a handler. */
    readonly effectType: string,
  ) {
    super(
      'MISSING_EFFECT_HANDLER',
      !DEV
        ? codedMessage('E18', quote(effectType))
        : `No handler is registered for effect ${quote(effectType)}, so it did not run. ` +
        `Register one with handleEffect(session, ${clip(effectType)}Effect, handler) before the event that produces it.`,
    );
  }
}

/** Thrown by `handleEffect` when the effect type already has a handler in this session. */
export class DuplicateEffectHandlerError extends RxSliceError {
  override readonly name = 'DuplicateEffectHandlerError';
  constructor(
    /** The effect type registered twice. */
    readonly effectType: string,
  ) {
    super(
      'DUPLICATE_EFFECT_HANDLER',
      `Effect ${quote(effectType)} already has a handler in this session. Call the previous registration's stop() first.`,
    );
  }
}

/**
 * Reported on `errors$` each time an epic errors. The epic is resubscribed unless `stopped`
 * is true (resubscription disabled, or `consecutiveFailures` reached the epic's cap).
 */
export class EpicFailedError extends RxSliceError {
  override readonly name = 'EpicFailedError';
  constructor(
    /** The epic's name. */ readonly epic: string,
    /** Failures in a row, this one included. */ readonly consecutiveFailures: number,
    /** True when the epic is not resubscribed (disabled, or the cap was reached). */ readonly stopped: boolean,
    cause: unknown,
  ) {
    super(
      'EPIC_FAILED',
      !DEV
        ? codedMessage('E59', `${quote(epic)} ${stopped ? 'stopped' : 'resubscribed'} after ${consecutiveFailures}: ${messageOf(cause)}`)
        : `Epic ${quote(epic)} failed (${consecutiveFailures} consecutive failure(s)): ${messageOf(cause)}. ` +
        (stopped
          ? 'It was stopped; fix the error and run it again with runEpic.'
          : 'It was resubscribed; catch errors inside the epic (catchError) to keep its state.'),
      { cause },
    );
  }
}

/** Reported on `errors$` when an epic emits something the session rejects; the epic keeps running. */
export class InvalidEpicOutputError extends RxSliceError {
  override readonly name = 'InvalidEpicOutputError';
  constructor(
    /** The epic's name. */
    readonly epic: string,
    /** What the epic emitted. */
    readonly output: unknown,
    cause: unknown,
  ) {
    super(
      'INVALID_EPIC_OUTPUT',
      !DEV
        ? codedMessage('E60', `${quote(epic)} emitted ${describe(output)}: ${messageOf(cause)}`)
        : `Epic ${quote(epic)} emitted ${describe(output)}, which the session rejected: ${messageOf(cause)}. ` +
        `Epics must emit events made by a defineEvent creator, with valid payloads.`,
      { cause },
    );
  }
}

function describe(output: unknown): string {
  if (output !== null && typeof output === 'object' && typeof (output as { type?: unknown }).type === 'string') {
    return `${quote((output as { type: string }).type)}`;
  }
  return output !== null && typeof output === 'object' ? 'an object without a string "type"' : String(output);
}

/** Thrown by `defineEffect` for options that make no sense (a non-positive timeout, an unknown concurrency mode). */
export class InvalidEffectDefinitionError extends RxSliceError {
  override readonly name = 'InvalidEffectDefinitionError';
  constructor(
    /** The effect type of the invalid definition. */
    readonly effectType: string,
    detail: string,
  ) {
    super('INVALID_EFFECT_DEFINITION', `Effect ${quote(effectType)} is misconfigured: ${detail}.`);
  }
}

/**
 * Thrown by an effect creator (`Fx(payload, { retry, timeoutMs })`) for instance options that make
 * no sense or cannot travel as data; a run whose effect carries such options (hand-made, or read
 * from JSON) fails with it at stage `'validation'`, without calling the handler.
 */
export class InvalidEffectOptionsError extends RxSliceError {
  override readonly name = 'InvalidEffectOptionsError';
  constructor(
    /** The effect type whose instance options are invalid. */
    readonly effectType: string,
    detail: string,
    options?: { cause?: unknown },
  ) {
    super(
      'INVALID_EFFECT_OPTIONS',
      `The options of effect ${quote(effectType)} are invalid: ${detail}. An effect instance carries { retry, timeoutMs } as plain data: ` +
        `a RetryPolicy made by RetryPolicy.exponential/fixed/none (or its spec) and a timeoutMs > 0.`,
      options,
    );
  }
}
