import { mergeMap, type Observable } from 'rxjs';
import type { CoreStore } from '../session/session-types';
import { SessionDisposedError } from '../session/errors';
import { SESSION_INTERNALS } from '../session/internals';
import type { AnyEffectDef, Effect, InferEffect, InferEffectResult } from './define-effect';
import type { EffectHandler } from './effect-handler';
import { effectRuntime, type EffectRegistration } from './effect-runtime';
import { quote } from '../internal/quote';

/**
 * Registers the handler of one effect type in `session`: from now on every effect of that
 * type that a reducer returns (`withEffects(op, [effect])`) runs through it, after its commit,
 * with the options of `def` (retry, timeout, concurrency, compensation, success event).
 *
 * @remarks Each attempt is announced as `rxslice.effect.started`; then `succeeded`,
 * `retrying` (with `attempt` and `delayMs`), `failed` (and `errors$` gets an
 * `EffectFailedError`), the compensation event and `compensated`, or `cancelled`. All timing
 * (retry delays, timeouts) runs on `session.scheduler`. An effect that arrives with no
 * handler registered is reported as `MissingEffectHandlerError` on `errors$`.
 * `session.dispose()` and `stop()` cancel runs in flight (their `ctx.signal` is aborted).
 * @param handler - `(effect, ctx) => Promise | Observable`; `ctx` has `signal`, `attempt`, `deps`.
 * @returns A registration whose `stop()` removes the handler.
 * @throws {@link DuplicateEffectHandlerError} when the type already has a handler;
 * {@link SessionDisposedError} after `dispose()`.
 * @example
 * ```ts
 * handleEffect(session, SendEmail, async (effect, { signal, deps }) => deps.mailer.send(effect.payload, { signal }));
 * session.dispatch(SignedUp({ to: 'a@b.c' })); // the reducer returns withEffects(append(...), [SendEmail({ to: 'a@b.c' })])
 * // committed$: user/signedUp, rxslice.effect.started, ... rxslice.effect.succeeded
 * ```
 */
export function handleEffect<TDef extends AnyEffectDef, TDeps = unknown>(
  session: CoreStore,
  def: TDef,
  handler: EffectHandler<InferEffect<TDef>, InferEffectResult<TDef>, TDeps>,
): EffectRegistration {
  if (session[SESSION_INTERNALS].disposed) throw new SessionDisposedError(`handle effect ${quote(def.type)}`);
  return effectRuntime(session).handle(def, handler as EffectHandler<any, any, any>);
}

/**
 * Runs an effect (or a composite made with `all`, `race`, `sequence`) now, through its
 * registered handler and options, without a reducer — for epics and imperative code.
 *
 * @remarks Cold: nothing runs until subscribed; unsubscribing cancels the run. Emits the
 * handler's result once and completes, or errors with the last error after the last attempt
 * (the failure is also reported on `errors$` and as `rxslice.effect.failed`). The effect's
 * concurrency mode does not apply here (it orders the effects reducers request).
 *
 * Reported means recorded: the result is emitted only after `rxslice.effect.succeeded` and the
 * `onSuccess` event were dispatched without error — on durable storage, written. When the
 * storage failed (on those writes or any earlier one: a failure stops every later dispatch), the
 * run errors with the session's `StorageFailedError`, or, for the `onSuccess` event, with an
 * `EffectFailedError` (`stage: 'onSuccess'`) whose `cause` it is; both are reported on `errors$`.
 * An `onSuccess` event the session rejects (a reducer threw) fails the run the same way.
 * @example
 * ```ts
 * const pipeline: Epic = (events$) => events$.pipe(ofType(Refresh), switchMap(() => runEffect(session, Fetch()).pipe(map(Loaded))));
 * ```
 */
export function runEffect(session: CoreStore, effect: Effect): Observable<unknown> {
  if (session[SESSION_INTERNALS].disposed) throw new SessionDisposedError(`run effect ${quote(effect.type)}`);
  return effectRuntime(session).execute(effect, undefined);
}

/**
 * The effects reducers request, in commit order, without running them: each effect of each
 * committed envelope's `effects`, emitted synchronously after its commit.
 *
 * @remarks Lets tests read what a reducer asked for. Completes when the session is disposed.
 * @example
 * ```ts
 * effects$(session).subscribe((e) => console.log(e.type));
 * session.dispatch(SignedUp({ to: 'a@b.c' })); // Logs: email/send
 * ```
 */
export function effects$(session: CoreStore): Observable<Effect> {
  return session.committed$.pipe(mergeMap((committed) => committed.effects));
}
