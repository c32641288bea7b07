import { AsyncSubject, defaultIfEmpty, defer, EMPTY, from, isObservable, Observable, of, retry, take, timer, type SchedulerLike, type Subscription } from 'rxjs';
import type { EnvelopeMeta } from '../events/envelope';
import type { EventCreator } from '../events/event';
import { errorInfo, type ErrorInfo } from '../effects/lifecycle-events';
import { RetryPolicy } from '../effects/retry-policy';
import type { RandomSource } from '../effects/seeded-random';
import type { RxSliceError } from '../internal/errors';
import type { AnySagaDef, AnySagaStep, SagaStepContext } from './define-saga';
import { SagaCancelledError, SagaCompensationFailedError, SagaFailedError, SagaNotRecordedError, SagaStepNotCompletedError, SagaStepTimeoutError } from './errors';
import {
  SagaCompensating,
  SagaCompensationFailed,
  SagaCompensationRetrying,
  SagaCompleted,
  SagaFailed,
  SagaStarted,
  SagaStepCompensated,
  SagaStepFailed,
  SagaStepRetrying,
  SagaStepStarted,
  SagaStepSucceeded,
} from './saga-events';
import type { CompletedStep, SagaProgress } from './saga-progress';

/** @internal What an execution needs from its session. */
export interface SagaHost {
  readonly scheduler: SchedulerLike;
  /**
   * Dispatches a library event; returns its seq, or undefined when the session is disposed or
   * is the local view of a shared log (which numbers it).
   * @throws what the session threw: the event was not recorded (a `StorageFailedError`, a `ReducerError`).
   */
  dispatch(event: { type: string; payload: unknown }, meta: EnvelopeMeta): number | undefined;
  report(error: RxSliceError): void;
  /** Called once the execution settled (its outcome reported, or stopped by dispose). */
  finished(execution: SagaExecution): void;
  /** The terminal event was dispatched but is not committed yet (queued, or on its way to a shared log): tell the execution when it is, or when it cannot be. */
  awaitRecord(execution: SagaExecution): void;
}

type Phase = 'idle' | 'running' | 'compensating' | 'done';

/** Anything a step may return, as an observable of its single result. */
function single(output: unknown): Observable<unknown> {
  if (isObservable(output)) return output.pipe(take(1), defaultIfEmpty(undefined));
  if (output !== null && typeof output === 'object' && typeof (output as { then?: unknown }).then === 'function') return from(output as PromiseLike<unknown>);
  return of(output);
}

/** The terminal transition of a run, dispatched and waiting for its commit. */
interface Terminal {
  readonly type: string;
  /** Reports the outcome (once the terminal event is recorded). */
  readonly deliver: () => void;
  /** The terminal envelope's seq once dispatched (undefined on a shared log's local view). */
  seq: number | undefined;
}

/**
 * @internal One run of a saga: the steps in order, then either `completed`, or the rollback of the
 * completed steps in reverse. Dispatches every transition as an `rxslice.saga.*` event; its
 * outcome (the results by step name, or a {@link SagaFailedError}) is `outcome`.
 *
 * Reported means recorded: the outcome is reported once the terminal event (`completed` or
 * `failed`) is committed — at once when the session was idle, after the envelope being processed
 * when it was queued behind one, when it comes back from the log on a shared session. A
 * transition the session did not take (the dispatch threw, or the queued event was rejected or
 * dropped by a storage failure) stops the run with a {@link SagaNotRecordedError}.
 */
export class SagaExecution {
  readonly outcome = new AsyncSubject<Record<string, unknown>>();
  private phase: Phase = 'idle';
  private readonly completed: CompletedStep[] = [];
  private readonly compensated = new Set<string>();
  private readonly compensationFailures: string[] = [];
  private failedStep: string | undefined = undefined;
  private error: unknown = undefined;
  private cancelledBy: 'cancelled' | undefined = undefined;
  /** seq of this saga's last transition: the causation of the next one. */
  private lastSeq: number | undefined;
  /** The step or compensation in flight. */
  private work: Subscription | undefined = undefined;
  /** Why the attempt in flight is being torn down (its signal's reason). */
  private abortReason: unknown = undefined;
  private readonly randoms = new Map<RetryPolicy, RandomSource>();
  private readonly source: string;
  /** The outcome was reported, or the run was stopped: nothing more happens. */
  private settled = false;
  /** The terminal transition waiting for its commit. */
  private terminal: Terminal | undefined = undefined;
  /** The seq of the last transition dispatched (undefined on a shared log's local view). */
  private emittedSeq: number | undefined = undefined;

  constructor(
    readonly def: AnySagaDef,
    readonly sagaId: string,
    readonly input: unknown,
    private readonly deps: unknown,
    private readonly host: SagaHost,
    cause: number | undefined,
  ) {
    this.lastSeq = cause;
    this.source = `saga:${def.name}`;
  }

  /** Starts a new run: `started`, then the first step. */
  start(): void {
    this.phase = 'running';
    this.emit(SagaStarted, { input: this.input });
    this.runStep(false);
  }

  /**
   * Continues a recorded run after a crash: a running saga runs its first step without a recorded
   * completion (the one in flight at the crash, with the same idempotency key); a compensating
   * saga compensates, in reverse, the completed steps whose compensation is not recorded.
   */
  resume(progress: SagaProgress): void {
    for (const c of progress.completed) this.completed.push(c);
    for (const s of progress.compensated) this.compensated.add(s);
    this.compensationFailures.push(...progress.compensationFailures);
    if (progress.phase === 'compensating') {
      this.phase = 'compensating';
      this.failedStep = progress.failedStep;
      this.error = progress.error === undefined ? undefined : Object.assign(new Error(progress.error.message), { name: progress.error.name });
      if (progress.reason === 'cancelled') this.cancelledBy = 'cancelled';
      this.compensateNext();
    } else {
      this.phase = 'running';
      this.runStep(true);
    }
  }

  /**
   * The subscriber left before the saga settled: aborts the step in flight and compensates the
   * completed steps in reverse (a rollback already under way just goes on).
   */
  cancel(): void {
    if (this.phase !== 'running') return;
    this.cancelledBy = 'cancelled';
    this.abort(new SagaCancelledError(this.def.name, this.sagaId, 'cancelled'));
    this.error = new SagaCancelledError(this.def.name, this.sagaId, 'cancelled');
    this.beginCompensation('cancelled');
  }

  /**
   * The session is disposed: aborts the work in flight (reason: `SagaCancelledError`) and records
   * nothing more (resume it later); the outcome completes without a value, as every session
   * observable completes on dispose.
   */
  stop(): void {
    if (this.settled) return;
    this.settled = true;
    this.phase = 'done';
    this.terminal = undefined;
    this.abort(new SagaCancelledError(this.def.name, this.sagaId, 'disposed'));
    this.outcome.complete();
  }

  /** The terminal transition of type `type` awaits its commit. */
  awaits(type: string): boolean {
    return this.terminal?.type === type;
  }

  /** The seq of the terminal envelope awaiting its commit (undefined when none, or on a shared log). */
  get awaitedSeq(): number | undefined {
    return this.terminal?.seq;
  }

  /** The terminal event was committed: reports the outcome. */
  recorded(): void {
    const terminal = this.terminal;
    if (terminal === undefined || this.settled) return;
    this.terminal = undefined;
    this.settled = true;
    this.host.finished(this);
    terminal.deliver();
  }

  /**
   * A transition was not recorded (`cause`: the error the session threw or reported; undefined
   * when the queued event was rejected and reported on `errors$`): the run stops here, and its
   * outcome is a {@link SagaNotRecordedError} (also reported on `errors$`).
   */
  notRecorded(transition: string, cause: unknown): void {
    if (this.settled) return;
    this.settled = true;
    this.phase = 'done';
    this.terminal = undefined;
    const error = new SagaNotRecordedError(this.def.name, this.sagaId, transition, cause);
    this.abort(error);
    this.host.finished(this);
    this.host.report(error);
    this.outcome.error(error);
  }

  /** The type of the terminal transition awaiting its commit, for {@link notRecorded}. */
  get awaitedType(): string | undefined {
    return this.terminal?.type;
  }

  private abort(reason: unknown): void {
    const work = this.work;
    this.work = undefined;
    this.abortReason = reason;
    work?.unsubscribe();
    this.abortReason = undefined;
  }

  /** Dispatches a transition; false when the session did not take it (the run then stopped: see {@link notRecorded}). */
  private emit<TPayload>(creator: EventCreator<string, TPayload>, payload: Omit<TPayload, 'sagaId' | 'saga'>): boolean {
    if (this.settled) return false;
    const meta: EnvelopeMeta =
      this.lastSeq === undefined
        ? { source: this.source, correlationId: this.sagaId }
        : { source: this.source, correlationId: this.sagaId, causationId: this.lastSeq };
    let seq: number | undefined;
    try {
      seq = this.host.dispatch({ type: creator.type, payload: { sagaId: this.sagaId, saga: this.def.name, ...payload } }, meta);
    } catch (error) {
      this.notRecorded(creator.type, error);
      return false;
    }
    this.emittedSeq = seq;
    if (seq !== undefined) this.lastSeq = seq;
    return true;
  }

  /**
   * Dispatches the terminal transition; `deliver` reports the outcome once it is committed: during
   * the dispatch when the session was idle, else later (see {@link SagaHost.awaitRecord}).
   */
  private finish<TPayload>(creator: EventCreator<string, TPayload>, payload: Omit<TPayload, 'sagaId' | 'saga'>, deliver: () => void): void {
    const terminal: Terminal = { type: creator.type, deliver, seq: undefined };
    this.terminal = terminal;
    if (!this.emit(creator, payload) || this.terminal !== terminal) return;
    terminal.seq = this.emittedSeq;
    this.host.awaitRecord(this);
  }

  private nextStep(): AnySagaStep | undefined {
    return this.def.steps.find((s) => !this.completed.some((c) => c.step === s.name));
  }

  private runStep(resumed: boolean): void {
    if (this.phase !== 'running' || this.settled) return;
    const current = this.nextStep();
    if (current === undefined) {
      this.phase = 'done';
      const results: Record<string, unknown> = {};
      for (const c of this.completed) results[c.step] = c.result;
      this.finish(SagaCompleted, {}, () => {
        this.outcome.next(results);
        this.outcome.complete();
      });
      return;
    }
    let attempts = 0;
    const key = `${this.sagaId}/${current.name}`;
    const work = this.attempts(
      current,
      key,
      (ctx) => current.run(this.input, ctx),
      (attempt) => {
        attempts = attempt;
        this.emit(SagaStepStarted, resumed ? { step: current.name, attempt, resumed: true } : { step: current.name, attempt });
      },
      (attempt, delayMs, error) => this.emit(SagaStepRetrying, { step: current.name, attempt, delayMs, error: errorInfo(error) }),
    ).subscribe({
      next: (result) => {
        this.work = undefined;
        this.completed.push({ step: current.name, result });
        this.emit(SagaStepSucceeded, { step: current.name, attempt: attempts, result });
        this.runStep(false);
      },
      error: (error: unknown) => {
        this.work = undefined;
        this.failedStep = current.name;
        this.error = error;
        this.emit(SagaStepFailed, { step: current.name, attempts, error: errorInfo(error) });
        this.beginCompensation('failed');
      },
    });
    // A step that settled synchronously already started what comes next (which set `work`).
    if (!work.closed) this.work = work;
  }

  private beginCompensation(reason: 'failed' | 'cancelled'): void {
    if (this.settled) return;
    this.phase = 'compensating';
    const steps = this.toCompensate().map((c) => c.step);
    this.emit(SagaCompensating, reason === 'failed' && this.failedStep !== undefined ? { reason, step: this.failedStep, steps } : { reason, steps });
    this.compensateNext();
  }

  /** Completed steps with a compensation not yet recorded, in reverse completion order. */
  private toCompensate(): CompletedStep[] {
    return this.completed
      .filter((c) => !this.compensated.has(c.step) && this.def.steps.find((s) => s.name === c.step)?.compensate !== undefined)
      .reverse();
  }

  private compensateNext(): void {
    if (this.phase !== 'compensating' || this.settled) return;
    const next = this.toCompensate()[0];
    if (next === undefined) return this.finishFailed();
    const s = this.def.steps.find((x) => x.name === next.step) as AnySagaStep;
    const compensate = s.compensate as NonNullable<AnySagaStep['compensate']>;
    const work = this.attempts(
      s,
      `${this.sagaId}/${s.name}/compensate`,
      (ctx) => compensate(next.result, ctx),
      () => undefined,
      (attempt, delayMs, error) => this.emit(SagaCompensationRetrying, { step: s.name, attempt, delayMs, error: errorInfo(error) }),
    ).subscribe({
      next: () => {
        this.work = undefined;
        this.compensated.add(s.name);
        this.emit(SagaStepCompensated, { step: s.name });
        this.compensateNext();
      },
      error: (error: unknown) => {
        this.work = undefined;
        this.compensated.add(s.name);
        this.compensationFailures.push(s.name);
        this.emit(SagaCompensationFailed, { step: s.name, error: errorInfo(error) });
        this.host.report(new SagaCompensationFailedError(this.def.name, this.sagaId, s.name, error));
        this.compensateNext();
      },
    });
    if (!work.closed) this.work = work;
  }

  private finishFailed(): void {
    this.phase = 'done';
    const info: ErrorInfo = errorInfo(this.error);
    const failure = new SagaFailedError(this.def.name, this.sagaId, this.failedStep, this.error, [...this.compensationFailures]);
    this.finish(
      SagaFailed,
      this.failedStep === undefined ? { error: info, compensationFailures: [...this.compensationFailures] } : { step: this.failedStep, error: info, compensationFailures: [...this.compensationFailures] },
      () => {
        if (this.cancelledBy === undefined) this.host.report(failure);
        this.outcome.error(failure);
      },
    );
  }

  /**
   * Attempts of `fn` under the step's timeout and retry policy, on the session scheduler. Each
   * attempt gets its own context and abort signal; emits the single result, or errors with the
   * last attempt's error. `onRetry` is told each failed attempt that will be retried (the next
   * attempt's number, the delay before it in ms, the error), before the delay runs.
   */
  private attempts(
    s: AnySagaStep,
    idempotencyKey: string,
    fn: (ctx: SagaStepContext) => unknown,
    onAttempt: (attempt: number) => void,
    onRetry: (attempt: number, delayMs: number, error: unknown) => void,
  ): Observable<unknown> {
    const policy = s.retry ?? RetryPolicy.none;
    const { scheduler } = this.host;
    let attempt = 0;
    const one = defer(() => {
      const n = ++attempt;
      onAttempt(n);
      // The attempt's start was not recorded (or the run was stopped meanwhile): it does not run.
      if (this.settled) return EMPTY;
      return new Observable<unknown>((subscriber) => {
        // The signal is made on first read of ctx.signal: an AbortController costs more than a
        // synchronous step, and most steps never read it (as effect attempts do).
        let controller: AbortController | undefined;
        let abortedWith: { reason: unknown } | undefined;
        const signal = (): AbortSignal => {
          if (controller === undefined) {
            controller = new AbortController();
            if (abortedWith !== undefined) controller.abort(abortedWith.reason);
          }
          return controller.signal;
        };
        const abort = (reason: unknown): void => {
          abortedWith = { reason };
          controller?.abort(reason);
        };
        let settled = false;
        const ctx = this.context(idempotencyKey, n, signal);
        let inner: Subscription | undefined;
        let timeoutTimer: Subscription | undefined;
        if (s.timeoutMs !== undefined) {
          const timeoutMs = s.timeoutMs;
          timeoutTimer = scheduler.schedule(() => {
            if (settled) return;
            settled = true;
            const error = new SagaStepTimeoutError(this.def.name, s.name, timeoutMs, n);
            abort(error);
            inner?.unsubscribe();
            subscriber.error(error);
          }, timeoutMs);
        }
        try {
          inner = single(fn(ctx)).subscribe({
            next: (value) => {
              if (settled) return;
              settled = true;
              timeoutTimer?.unsubscribe();
              subscriber.next(value);
              subscriber.complete();
            },
            error: (error: unknown) => {
              if (settled) return;
              settled = true;
              timeoutTimer?.unsubscribe();
              subscriber.error(error);
            },
          });
          if (settled) inner.unsubscribe();
        } catch (error) {
          settled = true;
          timeoutTimer?.unsubscribe();
          subscriber.error(error);
        }
        return () => {
          timeoutTimer?.unsubscribe();
          inner?.unsubscribe();
          if (!settled) {
            settled = true;
            abort(this.abortReason ?? new SagaCancelledError(this.def.name, this.sagaId, 'cancelled'));
          }
        };
      });
    });
    return policy.maxAttempts <= 1
      ? one
      : one.pipe(
          retry({
            count: policy.maxAttempts - 1,
            delay: (error: unknown, retryCount: number) => {
              const delayMs = policy.delayMs(retryCount, this.randomOf(policy));
              onRetry(retryCount + 1, delayMs, error);
              return timer(delayMs, scheduler);
            },
          }),
        );
  }

  private randomOf(policy: RetryPolicy): RandomSource {
    let random = this.randoms.get(policy);
    if (random === undefined) {
      random = policy.createRandom();
      this.randoms.set(policy, random);
    }
    return random;
  }

  private context(idempotencyKey: string, attempt: number, signal: () => AbortSignal): SagaStepContext {
    const { completed, def } = this;
    return {
      sagaId: this.sagaId,
      input: this.input,
      deps: this.deps,
      get signal() {
        return signal();
      },
      idempotencyKey,
      attempt,
      result: (name: string) => {
        const found = completed.find((c) => c.step === name);
        if (found === undefined) throw new SagaStepNotCompletedError(def.name, name);
        return found.result;
      },
    } as SagaStepContext;
  }
}
