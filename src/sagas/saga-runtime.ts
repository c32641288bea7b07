import { Observable } from 'rxjs';
import type { Session } from '../session/session-types';
import type { CommittedEnvelope } from '../session/committed-envelope';
import { SessionDisposedError } from '../session/errors';
import { SESSION_INTERNALS, type SessionInternals } from '../session/internals';
import { toIssues, type RxSliceError } from '../internal/errors';
import type { AnySagaDef, InferSagaInput, InferSagaResult } from './define-saga';
import { DuplicateSagaError, InvalidSagaDefinitionError, InvalidSagaInputError, UnknownSagaError } from './errors';
import { SagaExecution, type SagaHost } from './saga-execution';
import { SagaProgressSlice, type SagaProgress } from './saga-progress';
import { quote } from '../internal/quote';

/** Options of `session.runSaga`. */
export interface RunSagaOptions<TDeps = unknown> {
  /** Id of the run (idempotency keys start with it). Default: a random UUID. Must not be running or unfinished already. */
  readonly sagaId?: string;
  /** Dependencies of the steps (`ctx.deps`). Default: the session's `dependencies`. */
  readonly deps?: TDeps;
}

/** Options of `session.resumeSagas`. */
export interface ResumeSagasOptions<TDeps = unknown> {
  /** Definitions of the sagas to resume. Default: those given to `createSession({ sagas })`. */
  readonly sagas?: readonly AnySagaDef[];
  /** Dependencies of the steps. Default: the session's `dependencies`. */
  readonly deps?: TDeps;
}

/** A saga continued by `resumeSagas`: its outcome replays to late subscribers (an `AsyncSubject`). */
export interface ResumedSaga {
  readonly sagaId: string;
  readonly saga: string;
  /** The results by step name, then complete; or `SagaFailedError`. */
  readonly result$: Observable<Record<string, unknown>>;
}

const RUNTIME = Symbol.for('rxslice.sagas.runtime');

const newSagaId = (): string => {
  const crypto = (globalThis as { crypto?: { randomUUID?: () => string } }).crypto;
  if (crypto?.randomUUID !== undefined) return crypto.randomUUID();
  return `${Date.now().toString(36)}-${Math.random().toString(36).slice(2)}-${Math.random().toString(36).slice(2)}`;
};

/**
 * @internal The saga runner of one session: runs, resumes and starts (on events) sagas; holds the
 * running executions; stops them when the session is disposed. Created on first use.
 */
export class SagaRuntime implements SagaHost {
  private readonly internals: SessionInternals;
  private readonly running = new Map<string, SagaExecution>();
  private readonly defs = new Map<string, AnySagaDef>();
  deps: unknown = undefined;
  readonly scheduler;

  constructor(private readonly session: Session) {
    this.internals = session[SESSION_INTERNALS];
    this.scheduler = session.scheduler;
    if (!this.internals.hasSlice(SagaProgressSlice.name)) this.internals.addSlice(SagaProgressSlice);
    this.internals.onDispose(() => {
      for (const execution of [...this.running.values()]) execution.stop();
      this.running.clear();
    });
    this.internals.onDispose(this.internals.onCommitted(this));
  }

  /** @internal Starts a run of every registered saga whose `startOn` is the committed event's type. */
  onCommitted(committed: CommittedEnvelope): void {
    if (this.defs.size === 0) return;
    for (const def of this.defs.values()) {
      if (def.startOn === undefined || def.startOn.type !== committed.event.type) continue;
      const parsed = def.input.safeParse(committed.event.payload);
      if (!parsed.success) {
        this.report(new InvalidSagaInputError(def.name, toIssues(parsed.error.issues)));
        continue;
      }
      const execution = this.create(def, newSagaId(), parsed.data, this.deps, committed.seq);
      // Nobody subscribes: a failure is reported on errors$ by the execution.
      execution.outcome.subscribe({ error: () => undefined });
      execution.start();
    }
  }

  /** @throws {@link InvalidSagaDefinitionError} when another definition already has a saga's name (recovery finds sagas by name). */
  register(defs: readonly AnySagaDef[]): void {
    const seen = new Map(this.defs);
    for (const def of defs) {
      const known = seen.get(def.name);
      seen.set(def.name, def);
      if (known !== undefined && known !== def) {
        throw new InvalidSagaDefinitionError(def.name, `two different sagas are named ${quote(def.name)} in this session; resumeSagas finds an unfinished saga by its name, so names must be unique`);
      }
    }
    for (const def of defs) this.defs.set(def.name, def);
    // A saga's startOn event becomes known to the session (docs/ARCHITECTURE.md, "Known events").
    this.internals.declareEvents(defs.flatMap((def) => (def.startOn === undefined ? [] : [def.startOn.type])));
  }

  dispatch(event: { type: string; payload: unknown }, meta: Parameters<SagaHost['dispatch']>[1]): number | undefined {
    if (this.internals.disposed) return undefined;
    try {
      // On a shared session's local view the event is forwarded to the log unnumbered (seq 0).
      const seq = this.internals.dispatchSystem(event, meta).seq;
      return seq === 0 ? undefined : seq;
    } catch {
      // The session reported it (reducer error) on errors$.
      return undefined;
    }
  }

  report(error: RxSliceError): void {
    if (!this.internals.disposed) this.internals.reportError(error);
  }

  finished(execution: SagaExecution): void {
    if (this.running.get(execution.sagaId) === execution) this.running.delete(execution.sagaId);
  }

  /**
   * Stops every running saga (each stays unfinished in `rxslice/sagas`, for `resumeSagas`) and
   * forgets the registered definitions, so events start no more runs here. A shared session
   * calls this when its process loses the effect lease: the next holder resumes them.
   */
  stopAll(): void {
    for (const execution of [...this.running.values()]) execution.stop();
    this.running.clear();
    this.defs.clear();
  }

  private create(def: AnySagaDef, sagaId: string, input: unknown, deps: unknown, cause: number | undefined): SagaExecution {
    const execution = new SagaExecution(def, sagaId, input, deps, this, cause);
    this.running.set(sagaId, execution);
    return execution;
  }

  private unfinished(): readonly SagaProgress[] {
    return this.session.read(SagaProgressSlice);
  }

  run<TDef extends AnySagaDef>(def: TDef, input: InferSagaInput<TDef>, options: RunSagaOptions = {}): Observable<InferSagaResult<TDef>> {
    return new Observable<InferSagaResult<TDef>>((subscriber) => {
      if (this.internals.disposed) throw new SessionDisposedError(`run saga ${quote(def.name)}`);
      const parsed = def.input.safeParse(input);
      if (!parsed.success) throw new InvalidSagaInputError(def.name, toIssues(parsed.error.issues));
      const sagaId = options.sagaId ?? newSagaId();
      if (this.running.has(sagaId) || this.unfinished().some((p) => p.sagaId === sagaId)) throw new DuplicateSagaError(sagaId);
      const execution = this.create(def, sagaId, parsed.data, options.deps === undefined ? this.deps : options.deps, undefined);
      const subscription = execution.outcome.subscribe(subscriber as never);
      execution.start();
      return () => {
        subscription.unsubscribe();
        execution.cancel();
      };
    });
  }

  resume(options: ResumeSagasOptions = {}): ResumedSaga[] {
    if (this.internals.disposed) throw new SessionDisposedError('resume sagas');
    const defs = new Map(this.defs);
    for (const def of options.sagas ?? []) defs.set(def.name, def);
    const todo = this.unfinished().filter((p) => !this.running.has(p.sagaId));
    for (const p of todo) if (!defs.has(p.saga)) throw new UnknownSagaError(p.saga, p.sagaId);
    const deps = options.deps === undefined ? this.deps : options.deps;
    return todo.map((progress) => {
      const execution = this.create(defs.get(progress.saga) as AnySagaDef, progress.sagaId, progress.input, deps, undefined);
      execution.outcome.subscribe({ error: () => undefined });
      execution.resume(progress);
      return { sagaId: progress.sagaId, saga: progress.saga, result$: execution.outcome.asObservable() };
    });
  }
}

/** @internal The saga runtime of `session`, created on first use (installs the `rxslice/sagas` slice). */
export function sagaRuntime(session: Session): SagaRuntime {
  const internals = session[SESSION_INTERNALS];
  let runtime = internals.extensions.get(RUNTIME) as SagaRuntime | undefined;
  if (runtime === undefined) {
    if (internals.disposed) throw new SessionDisposedError('use sagas');
    runtime = new SagaRuntime(session);
    internals.extensions.set(RUNTIME, runtime);
  }
  return runtime;
}
