import { defer, Observable, of, retry, throwError } from 'rxjs';
import { codedMessage } from '../internal/coded-message';
import { DEV } from '../internal/dev';
import type { AnyEventCreator, Event } from '../events/event';
import type { CoreStore } from '../session/session-types';
import type { CommittedEnvelope } from '../session/committed-envelope';
import { SessionDisposedError } from '../session/errors';
import { SESSION_INTERNALS } from '../session/internals';
import type { SessionReader } from '../slices/reducer';
import { EpicFailedError, InvalidEpicOutputError } from './errors';
import { EffectFailed, errorInfo } from './lifecycle-events';
import { effectMeta } from './execute-effect';
import { quote } from '../internal/quote';

/**
 * A long-running workflow over the committed event stream (redux-observable's epic):
 * `(events$, state, deps) => Observable<Event>`. `events$` emits each envelope after its
 * commit (so `state` already reflects it); every event the epic emits is dispatched.
 */
export type Epic<TDeps = unknown> = (
  events$: Observable<CommittedEnvelope>,
  state: SessionReader,
  deps: TDeps,
) => Observable<Event>;

/** Options of {@link runEpic}. */
export interface EpicOptions<TDeps = unknown> {
  /** Name used in `meta.source`, errors and `rxslice.effect.failed`. Default: the function's name. */
  readonly name?: string;
  /** Passed as the epic's third argument. */
  readonly deps?: TDeps;
  /** Resubscribe after an error. Default `true`. */
  readonly resubscribe?: boolean;
  /** Failures in a row (no envelope handled in between) after which the epic is stopped. Default 10. */
  readonly maxConsecutiveFailures?: number;
  /**
   * The creators of the events the epic emits that nothing else in the session declares: running
   * the epic declares their types (docs/ARCHITECTURE.md, "Known events"), so the session accepts
   * them. An emitted event of an undeclared type is rejected (`UnknownEventError`) and reported.
   */
  readonly events?: readonly AnyEventCreator[];
}

/** A running epic. `stop()` unsubscribes it (cancelling its work in flight); idempotent. */
export interface EpicHandle {
  /** The epic's name: `meta.source` of the events it dispatches, and in its errors. */
  readonly name: string;
  /** True once the epic was stopped, completed, or gave up after too many failures. */
  readonly stopped: boolean;
  /** Unsubscribes the epic, cancelling its work in flight. Idempotent. */
  stop(): void;
}

/**
 * Runs an epic in `session` until it completes, is stopped, or the session is disposed.
 *
 * @remarks
 * - The epic subscribes to `session.committed$` when `runEpic` is called, and sees envelopes
 *   synchronously after their commit.
 * - Each emitted event is dispatched with `meta.source` = the epic's name and, when emitted
 *   synchronously while the epic handles an envelope, `meta.causationId` = that envelope's `seq`
 *   (and its `correlationId`). Dispatches from inside a commit are queued by the session (FIFO).
 * - An emitted value the session rejects (invalid payload, undeclared or reserved type, not an
 *   event) is reported on `errors$` by the session, then as {@link InvalidEpicOutputError}; the
 *   epic continues. `options.events` declares the types the epic emits.
 * - An error ends the current subscription: it is reported as `rxslice.effect.failed`
 *   (`kind: 'epic'`) and an {@link EpicFailedError} on `errors$`, then the epic function is
 *   called again and resubscribed (synchronously; the failing envelope is not redelivered),
 *   unless `resubscribe: false` or `maxConsecutiveFailures` failures happened with no envelope
 *   handled in between, in which case it is stopped (`stopped: true` on the error). The session,
 *   other epics and later events are never affected. Uses RxJS `retry`.
 * @throws {@link SessionDisposedError} after `dispose()`; `RangeError` for `maxConsecutiveFailures < 1`.
 * @example
 * ```ts
 * const pong: Epic = (events$) => events$.pipe(ofType(Pinged), map((env) => Ponged({ n: env.event.payload.n })));
 * const handle = runEpic(session, pong);
 * session.dispatch(Pinged({ n: 1 })); // committed$: demo/pinged (seq 1), then demo/ponged (causationId 1)
 * handle.stop();
 * ```
 */
export function runEpic<TDeps>(session: CoreStore, epic: Epic<TDeps>, options: EpicOptions<TDeps> = {}): EpicHandle {
  const internals = session[SESSION_INTERNALS];
  const name = options.name ?? (epic.name || 'anonymousEpic');
  if (internals.disposed) throw new SessionDisposedError(`run epic ${quote(name)}`);
  const maxFailures = options.maxConsecutiveFailures ?? 10;
  if (!(maxFailures >= 1)) throw new RangeError(!DEV ? codedMessage('E69', `${quote(name)}: ${maxFailures}`) : `maxConsecutiveFailures of epic ${quote(name)} must be ≥ 1 (got ${maxFailures}).`);
  const resubscribe = options.resubscribe ?? true;
  if (options.events !== undefined) internals.declareEvents(options.events.map((creator) => creator.type));
  const reader: SessionReader = { read: (slice) => session.read(slice) };

  let current: CommittedEnvelope | undefined;
  let consecutiveFailures = 0;
  let stopped = false;

  // Fed by a direct committed listener (told each commit just before `committed$` emits it):
  // no Subject and no operator between the session and the epic.
  const events$ = new Observable<CommittedEnvelope>((subscriber) =>
    internals.onCommitted({
      onCommitted: (committed) => {
        const previous = current;
        current = committed;
        try {
          subscriber.next(committed);
        } finally {
          current = previous;
        }
        if (!subscriber.closed) consecutiveFailures = 0;
      },
    }),
  );

  const dispatchOutput = (event: Event): void => {
    if (internals.disposed) return;
    try {
      // The meta was built here for this dispatch: the session keeps it as it is.
      internals.dispatchWithOwnMeta(event, effectMeta(name, current));
    } catch (error) {
      // A reducer failure is the reducer's, already on errors$; anything else names the epic.
      if ((error as { code?: unknown } | null)?.code !== 'REDUCER_FAILED') {
        internals.reportError(new InvalidEpicOutputError(name, event, error));
      }
    }
  };

  const onFailure = (error: unknown): Observable<number> => {
    consecutiveFailures++;
    const stop = !resubscribe || consecutiveFailures >= maxFailures;
    if (!internals.disposed) {
      internals.reportError(new EpicFailedError(name, consecutiveFailures, stop, error));
      internals.dispatchSystem(
        EffectFailed({ kind: 'epic', epic: name, consecutiveFailures, stopped: stop, error: errorInfo(error) }),
        { source: name },
      );
    }
    return stop ? throwError(() => error) : of(0);
  };

  const subscription = defer(() => epic(events$, reader, options.deps as TDeps))
    .pipe(retry({ delay: onFailure }))
    .subscribe({
      next: dispatchOutput,
      error: () => (stopped = true),
      complete: () => (stopped = true),
    });
  internals.onDispose(subscription);

  return {
    name,
    get stopped() {
      return stopped || subscription.closed;
    },
    stop() {
      stopped = true;
      subscription.unsubscribe();
    },
  };
}

/**
 * Runs several epics with the same dependencies (what `createSession({ epics, dependencies })`
 * does). Each epic is isolated: see {@link runEpic}.
 * @returns One handle per epic, in order.
 * @example
 * ```ts
 * const [pongHandle] = installEpics(session, [pong, audit], { api });
 * ```
 */
export function installEpics<TDeps>(session: CoreStore, epics: readonly Epic<TDeps>[], deps?: TDeps): readonly EpicHandle[] {
  return epics.map((epic) => runEpic(session, epic, deps === undefined ? {} : { deps }));
}
