import type { Observable } from 'rxjs';
import type { z } from 'zod';
import type { EventCreator } from '../events/event';
import type { RetryPolicy } from '../effects/retry-policy';
import { InvalidSagaDefinitionError } from './errors';
import { quote } from '../internal/quote';
import { linkLayer, SAGA_LAYER } from '../session/feature-layers';
import { sagaLayer } from './run-saga';

/**
 * What a step's `run` and `compensate` receive besides their data: the saga's dependencies,
 * an abort signal, the idempotency key of this step (or compensation), and the results of the
 * steps completed before it.
 */
export interface SagaStepContext<TInput = unknown, TDeps = unknown, TResults = Record<string, unknown>> {
  /** Unique id of this saga run (stable across a crash and its recovery). */
  readonly sagaId: string;
  /** The saga's validated input. */
  readonly input: TInput;
  /** The dependencies of the session (`createSession({ dependencies })`) or of `resumeSagas({ deps })`. */
  readonly deps: TDeps;
  /**
   * Aborted when the attempt times out, the saga is cancelled (`runSaga` unsubscribed) or the
   * session is disposed. Its `reason` is a `SagaStepTimeoutError`, or a `SagaCancelledError`.
   */
  readonly signal: AbortSignal;
  /**
   * Key to pass to external services: `<sagaId>/<step>` for a step, `<sagaId>/<step>/compensate`
   * for its compensation. The same for every attempt and after a crash, so a retried or resumed
   * call can be deduplicated by the service.
   */
  readonly idempotencyKey: string;
  /** Attempt of this run of the step, from 1 (restarts at 1 after recovery). */
  readonly attempt: number;
  /**
   * The result of an earlier, completed step.
   * @throws `SagaStepNotCompletedError` for a step that has not completed (or does not exist).
   */
  result<TName extends keyof TResults & string>(name: TName): TResults[TName];
}

/** What a step function may return: a promise, an observable (its first value is the result), or a plain value. */
export type StepOutput<TResult> = Promise<TResult> | PromiseLike<TResult> | Observable<TResult> | TResult;

/** Options of {@link step}. */
export interface StepConfig<TInput, TResult, TDeps, TResults> {
  /**
   * Does the step's work. Result: the promise's value, the observable's first value (it is then
   * unsubscribed; an observable that completes empty gives `undefined`), or a plain value. It is
   * stored in the saga log, so keep it JSON-compatible.
   */
  readonly run: (input: TInput, ctx: SagaStepContext<TInput, TDeps, TResults>) => StepOutput<TResult>;
  /** Undoes the step after a later step failed (or the saga was cancelled); gets the step's own result. */
  readonly compensate?: (result: NoInfer<TResult>, ctx: SagaStepContext<TInput, TDeps, TResults>) => StepOutput<unknown>;
  /** Per attempt (also per compensation attempt), in ms of the session scheduler. */
  readonly timeoutMs?: number;
  /** Retries of the step (and of its compensation). Default `RetryPolicy.none`. */
  readonly retry?: RetryPolicy;
}

/** A step of a saga, made by {@link step}. */
export interface SagaStep<TName extends string = string, TInput = any, TResult = unknown, TDeps = any> {
  readonly name: TName;
  /**
   * The step's work ({@link StepConfig.run}): gets the saga's input and the step context;
   * returns a promise, an observable (its first value) or a plain value, stored in the saga log.
   */
  readonly run: (input: TInput, ctx: SagaStepContext<TInput, TDeps, any>) => StepOutput<TResult>;
  /** Bivariant in `result` (method syntax), so steps of any result type fit a saga's step list. */
  readonly compensate: { bivariant(result: TResult, ctx: SagaStepContext<TInput, TDeps, any>): StepOutput<unknown> }['bivariant'] | undefined;
  readonly timeoutMs: number | undefined;
  readonly retry: RetryPolicy | undefined;
}

/** Any step. */
export type AnySagaStep = SagaStep<string, any, any, any>;

/** The results of a tuple of steps by name: `{ createResources: Vm; configureNetworking: Net }`. */
export type SagaResults<TSteps extends readonly AnySagaStep[]> = {
  readonly [TStep in TSteps[number] as TStep['name']]: TStep extends SagaStep<string, any, infer TResult, any> ? Awaited<TResult> : never;
};

/** A saga declaration, made by {@link defineSaga}. Inert: run it with `session.runSaga(def, input)`. */
export interface SagaDef<TName extends string = string, TInput = any, TSteps extends readonly AnySagaStep[] = readonly AnySagaStep[]> {
  readonly name: TName;
  /** Validates (and parses) the input of each run. */
  readonly input: z.ZodType<TInput>;
  readonly steps: TSteps;
  /** The event that starts a run (its payload is the input), when the saga is registered in `createSession({ sagas })`. */
  readonly startOn: EventCreator<string, any> | undefined;
  /** Phantom: the saga's result type (`SagaResults` of its steps). Always `undefined` at run time. */
  readonly Result: SagaResults<TSteps>;
}

/** Any saga declaration. */
export type AnySagaDef = SagaDef<string, any, readonly AnySagaStep[]>;

/** The result a saga's `runSaga` emits: every step's result by step name. */
export type InferSagaResult<TDef> = TDef extends SagaDef<string, any, infer TSteps> ? SagaResults<TSteps> : never;

/** The input type of a saga. */
export type InferSagaInput<TDef> = TDef extends SagaDef<string, infer TInput, any> ? TInput : never;

/**
 * Declares one step of a saga. Its result type is inferred from `run`; `compensate` receives it.
 *
 * @remarks TypeScript does not pass the saga's input type into a nested `step(...)` call, so
 * annotate `run`'s first parameter (`run: (input: DeployConfig, ctx) => ...`) for a typed input
 * (`defineSaga` then checks it against its schema); unannotated, it is `any`. `ctx.result(name)` is typed by the `TResults` type argument (the results of the earlier steps);
 * write them once as a type, e.g. `step<'configureNetworking', Net, Deps, Input, { createResources: Vm }>`,
 * or read them as `unknown` without it. A step is inert data with functions; nothing runs here.
 * @throws {@link InvalidSagaDefinitionError} for an empty name, a `run` that is not a function or
 * `timeoutMs ≤ 0`.
 * @example
 * ```ts
 * step('createResources', {
 *   run: (input, ctx) => ctx.deps.cloud.createVm(input, { signal: ctx.signal, key: ctx.idempotencyKey }),
 *   compensate: (vm, ctx) => ctx.deps.cloud.deleteVm(vm.vmId),
 *   timeoutMs: 30_000,
 * });
 * ```
 */
export function step<
  const TName extends string,
  TResult,
  TDeps = any,
  TInput = any,
  TResults extends Record<string, unknown> = Record<string, unknown>,
>(name: TName, config: StepConfig<TInput, TResult, TDeps, TResults>): SagaStep<TName, TInput, TResult, TDeps> {
  if (typeof name !== 'string' || name.length === 0) throw new InvalidSagaDefinitionError(String(name), 'a step name must be a non-empty string');
  if (typeof config?.run !== 'function') throw new InvalidSagaDefinitionError(name, `step ${quote(name)} needs a run function`);
  if (config.compensate !== undefined && typeof config.compensate !== 'function') {
    throw new InvalidSagaDefinitionError(name, `compensate of step ${quote(name)} must be a function`);
  }
  if (config.timeoutMs !== undefined && !(config.timeoutMs > 0)) {
    throw new InvalidSagaDefinitionError(name, `timeoutMs of step ${quote(name)} must be > 0 (got ${config.timeoutMs}); omit it for no timeout`);
  }
  return Object.freeze({
    name,
    run: config.run as SagaStep<TName, TInput, TResult, TDeps>['run'],
    compensate: config.compensate as SagaStep<TName, TInput, TResult, TDeps>['compensate'],
    timeoutMs: config.timeoutMs,
    retry: config.retry,
  });
}

/** Options of {@link defineSaga}. */
export interface SagaConfig<TInput, TSteps extends readonly AnySagaStep[]> {
  /** zod schema of the input; `runSaga` validates and parses with it. */
  readonly input: z.ZodType<TInput>;
  /** The steps, run in this order; compensated in reverse. */
  readonly steps: TSteps;
  /** An event whose every dispatch starts a run with its payload as input (`createSession({ sagas })`). */
  readonly startOn?: EventCreator<string, NoInfer<TInput>>;
}

/** Options of {@link defineSaga} in its builder form (the steps follow with `.step(...)`). */
export interface SagaBuilderConfig<TInput> {
  /** zod schema of the input; `runSaga` validates and parses with it. Every step's `input` has its type. */
  readonly input: z.ZodType<TInput>;
  /** An event whose every dispatch starts a run with its payload as input (`createSession({ sagas })`). */
  readonly startOn?: EventCreator<string, NoInfer<TInput>>;
  readonly steps?: undefined;
}

/**
 * A step name not yet used in `TResults`: the name itself when it is new; a name used twice is a
 * type error on the name (the message names the property `'a step of this name exists'`), and
 * at run time {@link SagaBuilder.step} throws {@link InvalidSagaDefinitionError} for it.
 */
export type NewStepName<TStep extends string, TResults> = TStep & ([TStep] extends [keyof TResults] ? { readonly 'a step of this name exists': never } : unknown);

/**
 * A saga with at least one step, made by {@link SagaBuilder.step}: a {@link SagaDef} (run it,
 * list it in `createSession({ sagas })`) that can take more steps. Each `.step` returns a new
 * definition; the earlier one is unchanged.
 */
export interface SagaChain<TName extends string, TInput, TSteps extends readonly AnySagaStep[], TDeps> extends SagaDef<TName, TInput, TSteps> {
  /**
   * Appends a step. `run` gets the saga's input (typed by its schema) and a `ctx` whose
   * `result(name)` accepts exactly the names of the earlier steps and returns their result types.
   * @throws {@link InvalidSagaDefinitionError} for a name already used, or a malformed step (see {@link step}).
   */
  step<const TStep extends string, TResult>(
    name: NewStepName<TStep, SagaResults<TSteps>>,
    config: StepConfig<TInput, TResult, TDeps, SagaResults<TSteps>>,
  ): SagaChain<TName, TInput, readonly [...TSteps, SagaStep<TStep, TInput, TResult, TDeps>], TDeps>;
}

/**
 * The start of a saga declared step by step: `defineSaga(name, { input })` returns it. It is not a
 * saga yet (a saga needs a step, so `runSaga` refuses it at compile time); `.step(...)` makes one.
 */
export interface SagaBuilder<TName extends string, TInput, TDeps = any> {
  readonly name: TName;
  readonly input: z.ZodType<TInput>;
  readonly startOn: EventCreator<string, any> | undefined;
  /** Types `ctx.deps` in the steps that follow (no effect at run time; the session's `dependencies` are passed). */
  withDeps<TNextDeps>(): SagaBuilder<TName, TInput, TNextDeps>;
  /** The first step; see {@link SagaChain.step}. No earlier result exists, so `ctx.result` accepts no name. */
  step<const TStep extends string, TResult>(
    name: TStep,
    config: StepConfig<TInput, TResult, TDeps, {}>,
  ): SagaChain<TName, TInput, readonly [SagaStep<TStep, TInput, TResult, TDeps>], TDeps>;
}

function checkSagaName(name: unknown): asserts name is string {
  if (typeof name !== 'string' || name.length === 0) throw new InvalidSagaDefinitionError(String(name), 'the saga name must be a non-empty string');
}

function checkInput(name: string, input: unknown): void {
  if (typeof (input as { safeParse?: unknown } | undefined)?.safeParse !== 'function') {
    throw new InvalidSagaDefinitionError(name, 'input must be a zod schema (z.object({...}))');
  }
}

function checkSteps(name: string, steps: readonly AnySagaStep[]): void {
  const seen = new Set<string>();
  for (const s of steps) {
    if (typeof s?.run !== 'function') throw new InvalidSagaDefinitionError(name, 'every step must be made with step(name, { run })');
    if (seen.has(s.name)) throw new InvalidSagaDefinitionError(name, `two steps are named ${quote(s.name)}; step names must be unique`);
    seen.add(s.name);
  }
}

function sagaDef(name: string, input: z.ZodType<unknown>, startOn: EventCreator<string, any> | undefined, steps: readonly AnySagaStep[]): SagaChain<string, unknown, readonly AnySagaStep[], unknown> {
  checkSteps(name, steps);
  // Sessions run sagas through the layer a definition links: the core session imports no saga code.
  linkLayer(SAGA_LAYER, sagaLayer);
  return Object.freeze({
    name,
    input,
    steps: Object.freeze([...steps]),
    startOn,
    Result: undefined as unknown as SagaResults<readonly AnySagaStep[]>,
    step: (stepName: string, config: StepConfig<unknown, unknown, unknown, any>) => sagaDef(name, input, startOn, [...steps, step(stepName, config)]),
  }) as SagaChain<string, unknown, readonly AnySagaStep[], unknown>;
}

/**
 * Declares a saga: ordered steps against external services, each with an optional
 * compensation, run by `session.runSaga(def, input)` or started by an event (`startOn`).
 *
 * Two forms: with `steps: [step(...), ...]` it returns the saga at once; without `steps` it returns
 * a {@link SagaBuilder} whose `.step(name, { run, compensate })` calls add the steps, with every
 * step's `input` typed by the schema and `ctx.result(name)` typed by the earlier steps (the list
 * form cannot infer those: TypeScript does not pass types between the elements of an array).
 *
 * @remarks Inert and reusable by any number of sessions. Semantics (docs/ARCHITECTURE.md, "Sagas";
 * after Garcia-Molina and Salem, "Sagas", SIGMOD 1987): steps run in order, each result is
 * stored; when a step fails (after its retries, or on timeout) the completed steps are
 * compensated in reverse order, each with its own result; a failing compensation is reported and
 * the rollback goes on. Every transition is an `rxslice.saga.*` event, and the unfinished sagas'
 * progress is the state slice `rxslice/sagas`, which `resumeSagas` continues after a crash.
 * @throws {@link InvalidSagaDefinitionError} for an empty name, no steps (list form), duplicate step
 * names or an input that is not a zod schema.
 * @example
 * ```ts
 * const Deployment = defineSaga('deployment', { input: z.object({ app: z.string() }) })
 *   .withDeps<{ cloud: Cloud }>()
 *   .step('createResources', { run: (input, ctx) => ctx.deps.cloud.createVm(input.app), compensate: (vm, ctx) => ctx.deps.cloud.deleteVm(vm.vmId) })
 *   .step('deployApplication', { run: (input, ctx) => ctx.deps.cloud.deploy(ctx.result('createResources').vmId, input.app) });
 * session.runSaga(Deployment, { app: 'web' }).subscribe(console.log); // Logs: { createResources: {...}, deployApplication: {...} }
 * ```
 */
export function defineSaga<const TName extends string, TInput, const TSteps extends readonly SagaStep<string, TInput, any, any>[]>(
  name: TName,
  config: SagaConfig<TInput, TSteps>,
): SagaDef<TName, TInput, TSteps>;
export function defineSaga<const TName extends string, TInput>(name: TName, config: SagaBuilderConfig<TInput>): SagaBuilder<TName, TInput>;
export function defineSaga(name: string, config: SagaConfig<unknown, readonly AnySagaStep[]> | SagaBuilderConfig<unknown>): AnySagaDef | SagaBuilder<string, unknown> {
  checkSagaName(name);
  checkInput(name, config?.input);
  if (config.steps === undefined) {
    const builder: SagaBuilder<string, unknown> = Object.freeze({
      name,
      input: config.input,
      startOn: config.startOn,
      withDeps: () => builder,
      step: (stepName: string, stepConfig: StepConfig<unknown, unknown, unknown, {}>) => sagaDef(name, config.input, config.startOn, [step(stepName, stepConfig)]),
    }) as SagaBuilder<string, unknown>;
    return builder;
  }
  if (!Array.isArray(config.steps) || config.steps.length === 0) throw new InvalidSagaDefinitionError(name, 'a saga needs at least one step');
  return sagaDef(name, config.input, config.startOn, config.steps);
}
