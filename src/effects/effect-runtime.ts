import {
  catchError,
  concatMap,
  defaultIfEmpty,
  defer,
  EMPTY,
  exhaustMap,
  filter,
  finalize,
  forkJoin,
  mergeMap,
  Observable,
  type OperatorFunction,
  of,
  race,
  Subject,
  Subscription,
  switchMap,
  tap,
  throwError,
} from 'rxjs';
import type { Event } from '../events/event';
import type { Envelope, EnvelopeMeta } from '../events/envelope';
import type { RxSliceError } from '../internal/errors';
import type { CoreStore } from '../session/session-types';
import type { CommittedEnvelope } from '../session/committed-envelope';
import { SessionDisposedError } from '../session/errors';
import { SESSION_INTERNALS, type SessionInternals } from '../session/internals';
import { isCompositeEffect } from './compose';
import type { AnyEffectDef, Concurrency, Effect } from './define-effect';
import type { EffectHandler } from './effect-handler';
import { DuplicateEffectHandlerError, EffectFailedError, MissingEffectHandlerError } from './errors';
import { effectMeta, startDetachedLeaf, startLeaf, type EffectSink, type LeafRun } from './execute-effect';
import { EffectCompensated, EffectDropped } from './lifecycle-events';
import { RetryPolicy } from './retry-policy';
import type { RandomSource } from './seeded-random';
import { quote } from '../internal/quote';

/** A leaf effect that succeeded inside a `sequence` (compensated if a later step fails). */
interface Succeeded {
  readonly registration: Registration;
  readonly effect: Effect;
  readonly effectId: number;
}

interface Request {
  readonly effect: Effect;
  readonly cause: Envelope | undefined;
}

interface Registration {
  readonly def: AnyEffectDef;
  readonly handler: EffectHandler<any, any, any>;
  readonly random: RandomSource;
  /** `meta.source` of the events its runs dispatch. */
  readonly source: string;
  /** Requests of a type whose concurrency is not `'merge'` go through a flattening operator; `'merge'` runs start directly. */
  readonly input: Subject<Request> | undefined;
  /** Holds the runs in flight (directly, or through `input`'s pipeline); unsubscribed by `stop()`. */
  readonly subscription: Subscription;
}

/** A registered handler; `stop()` removes it and cancels its effects in flight. Idempotent. */
export interface EffectRegistration {
  /** The effect type the handler handles. */
  readonly effectType: string;
  /** Removes the handler and cancels its effects in flight. Idempotent. */
  stop(): void;
}

/** Codes of errors the session reports itself when `dispatch` throws them. */
const REPORTED_BY_SESSION = new Set(['INVALID_EVENT', 'UNKNOWN_EVENT', 'RESERVED_EVENT_TYPE', 'REDUCER_FAILED']);

/** The string `type` of what a compensate or onSuccess callback returned, or `undefined` (not an event, or unreadable). */
function declaredType(event: unknown): string | undefined {
  try {
    const type = event !== null && typeof event === 'object' ? (event as { type?: unknown }).type : undefined;
    return typeof type === 'string' ? type : undefined;
  } catch {
    return undefined;
  }
}

/**
 * @internal Calls `dispatch`, passing to `onRejected` the errors it throws that the session did
 * not report itself. Returns what it threw (the event was not recorded), or `undefined`.
 */
export function dispatchQuietly(
  dispatch: (event: Event, meta: EnvelopeMeta) => unknown,
  event: Event,
  meta: EnvelopeMeta,
  onRejected: (error: unknown) => void,
): unknown {
  try {
    dispatch(event, meta);
    return undefined;
  } catch (error) {
    const code = (error as { code?: unknown } | null)?.code;
    if (typeof code !== 'string' || !REPORTED_BY_SESSION.has(code)) onRejected(error);
    return error ?? new Error(`dispatching ${quote(event.type)} failed`);
  }
}

function flatten(
  mode: Concurrency,
  project: (request: Request) => Observable<unknown>,
  onDropped: (request: Request) => void,
): OperatorFunction<Request, unknown> {
  switch (mode) {
    case 'merge':
      return mergeMap(project);
    case 'switch':
      return switchMap(project);
    case 'concat':
      return concatMap(project);
    case 'exhaust':
      return (source) =>
        defer(() => {
          let busy = false;
          return source.pipe(
            filter((request) => {
              if (busy) onDropped(request);
              return !busy;
            }),
            exhaustMap((request) => {
              busy = true;
              return project(request).pipe(finalize(() => (busy = false)));
            }),
          );
        });
  }
}

/**
 * @internal The effect runner of one session: the handler registry, routing of the effects
 * carried by `committed$`, and execution (leaf effects and composites). One per session,
 * created on first use; torn down by `session.dispose()`.
 */
export class EffectRuntime {
  private readonly internals: SessionInternals;
  private readonly handlers = new Map<string, Registration>();
  private readonly subscription = new Subscription();
  private nextEffectId = 0;
  deps: unknown = undefined;

  private readonly sink: EffectSink = {
    system: (event, meta) => {
      if (this.internals.disposed) return undefined;
      return dispatchQuietly(this.internals.dispatchSystem, event, meta, (error) => this.report(error as RxSliceError));
    },
    user: (event, meta, onRejected) => {
      if (this.internals.disposed) return new SessionDisposedError(`dispatch ${quote(event.type)}`);
      // The effect declares the events its compensate and onSuccess make (docs/ARCHITECTURE.md,
      // "Known events"); a malformed one is left to dispatch to reject.
      const type = declaredType(event);
      if (type !== undefined) this.internals.declareEvents([type]);
      return dispatchQuietly(this.session.dispatch, event, meta, onRejected);
    },
    report: (error) => this.report(error),
  };

  constructor(private readonly session: CoreStore) {
    this.internals = session[SESSION_INTERNALS];
    this.internals.onDispose(this.subscription);
    this.subscription.add(this.internals.onCommitted(this));
  }

  /** @internal The session tells this runtime only the commits that carry effects (see `CommittedListener.effectsOnly`). */
  readonly effectsOnly = true;

  /** @internal Called by the session for the commits that carry effects: routes them. */
  onCommitted(committed: CommittedEnvelope): void {
    const effects = committed.effects;
    for (let i = 0; i < effects.length; i++) this.route(effects[i] as Effect, committed);
  }

  private report(error: RxSliceError): void {
    if (!this.internals.disposed) this.internals.reportError(error);
  }

  /** Registers the handler of `def`'s effects; they run under `def.options.concurrency`. */
  handle(def: AnyEffectDef, handler: EffectHandler<any, any, any>): EffectRegistration {
    if (this.handlers.has(def.type)) throw new DuplicateEffectHandlerError(def.type);
    const mode = def.options.concurrency ?? 'merge';
    const input = mode === 'merge' ? undefined : new Subject<Request>();
    const subscription = new Subscription();
    const registration: Registration = {
      def,
      handler,
      random: (def.options.retry ?? RetryPolicy.none).createRandom(),
      source: `effect:${def.type}`,
      input,
      subscription,
    };
    const project = (request: Request): Observable<unknown> =>
      this.runLeaf(registration, request.effect, request.cause).pipe(catchError(() => EMPTY));
    const onDropped = (request: Request): void => {
      this.sink.system(EffectDropped({ effectType: def.type, reason: 'exhaust' }), { source: registration.source, ...causation(request.cause) });
    };
    if (input !== undefined) subscription.add(input.pipe(flatten(mode, project, onDropped)).subscribe());
    this.subscription.add(subscription);
    this.handlers.set(def.type, registration);
    return {
      effectType: def.type,
      stop: () => {
        if (this.handlers.get(def.type) === registration) this.handlers.delete(def.type);
        subscription.unsubscribe();
        input?.complete();
      },
    };
  }

  /** Routes an effect a reducer produced: to its type's queue, or (composites) straight to execution. */
  private route(effect: Effect, cause: Envelope): void {
    if (isCompositeEffect(effect)) {
      this.subscription.add(this.execute(effect, cause).pipe(catchError(() => EMPTY)).subscribe());
      return;
    }
    const registration = this.handlers.get(effect.type);
    if (registration === undefined) this.report(new MissingEffectHandlerError(effect.type));
    else if (registration.input !== undefined) registration.input.next({ effect, cause });
    else {
      // 'merge', as mergeMap + catchError(() => EMPTY) would do it: start now. The run leaves the
      // registration's subscription by itself when it settles (parentage), and is never added if
      // it settled synchronously.
      registration.subscription.add(startDetachedLeaf(this.leafRun(registration, effect, cause), this.sink));
    }
  }

  /**
   * Runs an effect (leaf or composite) now, bypassing its type's concurrency mode. Emits the
   * result once and completes, or errors (the failure was already reported).
   */
  execute(effect: Effect, cause: Envelope | undefined, done?: Succeeded[]): Observable<unknown> {
    if (isCompositeEffect(effect)) {
      switch (effect.type) {
        case 'rxslice.effect.all':
          return forkJoin(effect.payload.effects.map((child) => this.execute(child, cause, done))).pipe(defaultIfEmpty([]));
        case 'rxslice.effect.race':
          return race(effect.payload.effects.map((child) => this.execute(child, cause, done)));
        case 'rxslice.effect.sequence':
          // The leaf effects that succeeded inside this sequence, in order: on a later failure they
          // are compensated in reverse (the failing leaf already compensated itself), as a saga does.
          return defer(() => {
            const succeeded: Succeeded[] = [];
            return effect.payload.steps
              .reduce<Observable<unknown>>(
                (previous$, step) =>
                  previous$.pipe(concatMap((previous) => defer(() => this.execute(typeof step === 'function' ? step(previous) : step, cause, succeeded)))),
                of(undefined),
              )
              .pipe(
                tap({ next: () => done?.push(...succeeded) }),
                catchError((error: unknown) => {
                  this.compensateSucceeded(succeeded, error, cause);
                  return throwError(() => error);
                }),
              );
          });
      }
    }
    return defer(() => {
      const registration = this.handlers.get(effect.type);
      if (registration === undefined) {
        const missing = new MissingEffectHandlerError(effect.type);
        this.report(missing);
        return throwError(() => missing);
      }
      return this.runLeaf(registration, effect, cause, done);
    });
  }

  /** Dispatches the compensation of each succeeded leaf (that has one), last first, then `rxslice.effect.compensated`. */
  private compensateSucceeded(succeeded: readonly Succeeded[], error: unknown, cause: Envelope | undefined): void {
    for (let i = succeeded.length - 1; i >= 0; i--) {
      const { registration, effect, effectId } = succeeded[i] as Succeeded;
      const compensate = registration.def.options.compensate;
      if (compensate === undefined) continue;
      const meta = effectMeta(registration.source, cause);
      const fail = (thrown: unknown) => this.report(new EffectFailedError(effect.type, effectId, 'compensate', 1, thrown));
      let compensation: Event;
      try {
        compensation = compensate(effect, error);
      } catch (thrown) {
        fail(thrown);
        continue;
      }
      if (this.sink.user(compensation, meta, fail) === undefined) {
        this.sink.system(EffectCompensated({ effectId, effectType: effect.type, compensation: compensation.type }), meta);
      }
    }
  }

  /** One run of a leaf effect per subscription; its `effectId` is taken when it is subscribed. */
  private runLeaf(registration: Registration, effect: Effect, cause: Envelope | undefined, done?: Succeeded[]): Observable<unknown> {
    return new Observable<unknown>((subscriber) => {
      const run = this.leafRun(registration, effect, cause);
      if (done === undefined) return startLeaf(run, this.sink, subscriber);
      return startLeaf(run, this.sink, {
        get closed() {
          return subscriber.closed;
        },
        next: (result) => {
          done.push({ registration, effect, effectId: run.effectId });
          subscriber.next(result);
        },
        error: (error: unknown) => subscriber.error(error),
        complete: () => subscriber.complete(),
      });
    });
  }

  /** What a run that starts now needs; takes the next `effectId`. */
  private leafRun(registration: Registration, effect: Effect, cause: Envelope | undefined): LeafRun {
    return {
      effect,
      source: registration.source,
      def: registration.def,
      handler: registration.handler,
      random: registration.random,
      deps: this.deps,
      effectId: ++this.nextEffectId,
      cause,
      scheduler: this.session.scheduler,
    };
  }
}

function causation(cause: Envelope | undefined): { causationId?: number } {
  return cause === undefined ? {} : { causationId: cause.seq };
}

const RUNTIME = Symbol.for('rxslice.effects.runtime');

/**
 * @internal The effect runtime of `session`, created on first use and kept in the session's
 * own extension registry (no module-level state), so it belongs to that session alone.
 */
export function effectRuntime(session: CoreStore): EffectRuntime {
  const internals = session[SESSION_INTERNALS];
  let runtime = internals.extensions.get(RUNTIME) as EffectRuntime | undefined;
  if (runtime === undefined) {
    runtime = new EffectRuntime(session);
    internals.extensions.set(RUNTIME, runtime);
  }
  return runtime;
}
