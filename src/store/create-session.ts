import { defer, EMPTY, mergeMap, of, throwError, type Observable } from 'rxjs';
import type { AnyEffectDef, Effect, InferEffect, InferEffectResult } from '../effects/define-effect';
import type { EffectHandler } from '../effects/effect-handler';
import { runEpic, type Epic, type EpicHandle, type EpicOptions } from '../effects/epic';
import type { EffectRegistration } from '../effects/effect-runtime';
import { isCompositeEffect } from '../effects/compose';
import { MissingEffectHandlerError } from '../effects/errors';
import type { MachineDefinition } from '../machines/machine-definition';
import type { SessionMachine } from '../machines/session-machine';
import type { AnySagaDef, InferSagaInput, InferSagaResult } from '../sagas/define-saga';
import type { SagaHistoryOptions, SagaRecord } from '../sagas/saga-history';
import type { ResumedSaga, ResumeSagasOptions, RunSagaOptions } from '../sagas/saga-runtime';
import type { Event } from '../events/event';
import type { CommittedEnvelope } from '../session/committed-envelope';
import { createCoreSession } from '../session/create-core-session';
import { SagaRuntimeMissingError, SessionDisposedError } from '../session/errors';
import { EFFECTS_LAYER, layerOf, linkedLayer, MACHINE_LAYER, SAGA_LAYER, type EffectsLayer, type MachineLayer, type SagaLayer } from '../session/feature-layers';
import { SESSION_INTERNALS } from '../session/internals';
import type { Session as CoreSession, SessionEvent, SessionOptions as CoreSessionOptions } from '../session/session-types';
import { installSlice, type InstallSliceOptions } from '../session/install-slice';
import type { SliceHandle } from '../session/slice-handle';
import type { SliceDef } from '../slices/reducer';
import { quote } from '../internal/quote';

/** Options of {@link createSession}: the core options plus epics and their dependencies. */
export interface SessionOptions<TDeps = unknown> extends CoreSessionOptions {
  /** Epics started with the session, in order (see `runEpic`). */
  readonly epics?: readonly Epic<TDeps>[];
  /** Passed to every epic (third argument) and every effect handler (`ctx.deps`). */
  readonly dependencies?: TDeps;
  /**
   * Sagas of the session: the `rxslice/sagas` slice is added at once (so `restore` and durable
   * storage bring back unfinished sagas), `resumeSagas()` knows them, and those with `startOn`
   * start on their event. Sagas run with `runSaga` need not be listed.
   */
  readonly sagas?: readonly AnySagaDef[];
  /**
   * Retention of the sagas' completion records (`session.sagaHistory()`): `keepLast` (default
   * 100) and `maxAgeMs` (default: no age limit). Given alone, it attaches the saga layer too.
   * @throws `InvalidSagaHistoryError` for a `keepLast` that is not an integer >= 0 or a negative `maxAgeMs`.
   */
  readonly sagaHistory?: SagaHistoryOptions;
}

/**
 * A live session with every layer wired in: the core store (dispatch, slices, snapshots,
 * computed slices through `session.computed`), effects and epics, and statecharts.
 */
export interface Session<TDeps = unknown, TEvent extends Event = Event> extends CoreSession<TEvent> {
  /** Starts an epic with the session's dependencies; returns a handle to stop it. See `runEpic`. */
  run(epic: Epic<TDeps>, options?: EpicOptions<TDeps>): EpicHandle;
  /** Registers the handler of an effect type. See `handleEffect`. */
  handle<TDef extends AnyEffectDef>(def: TDef, handler: EffectHandler<InferEffect<TDef>, InferEffectResult<TDef>, TDeps>): EffectRegistration;
  /** Runs an effect (or a composite of effects) now, outside any reducer. See `runEffect`. */
  runEffect(effect: Effect): Observable<unknown>;
  /** The effects reducers request, as data, in commit order (without running them). */
  readonly effects$: Observable<Effect>;
  /** Runs a saga: a cold observable of its results by step name, or `SagaFailedError`. See `runSaga`. */
  runSaga<TDef extends AnySagaDef>(def: TDef, input: InferSagaInput<TDef>, options?: RunSagaOptions<TDeps>): Observable<InferSagaResult<TDef>>;
  /**
   * Resumes the unfinished sagas recorded in the session (after a restore or reopening storage). See `resumeSagas`.
   * @throws `SagaRuntimeMissingError` in a program that defines no saga when the session's storage
   * holds unfinished sagas (only their definitions can resume them); `[]` when it holds none.
   */
  resumeSagas(options?: ResumeSagasOptions<TDeps>): ResumedSaga[];
  /**
   * The completion records of the finished sagas, oldest first, under the retention `sagaHistory`. See `sagaHistory`.
   * In a program that defines no saga, the records the session's storage holds (read without the saga runtime), or `[]`.
   */
  sagaHistory(): readonly SagaRecord[];
  /** Installs a statechart: its snapshot becomes the slice `machine/<name>`. See `installMachine`. */
  install<TContext, TEventType extends string, TStateId extends string>(
    machine: MachineDefinition<TContext, TEventType, TStateId>,
  ): SessionMachine<TContext, TEventType, TStateId>;
  /**
   * Installs a slice at run time (the seed's `session.install(AgentPlan, initial=lambda: ...)`):
   * its storage opens like the others', its reducers route from the next event, and an audited
   * `rxslice.slice.installed` event records it. See `installSlice`.
   */
  install<TItem>(slice: SliceDef<string, TItem>, options?: InstallSliceOptions<TItem>): SliceHandle<TItem>;
  /** The installed machine of a definition. See `sessionMachine`. */
  machine<TContext, TEventType extends string, TStateId extends string>(
    machine: MachineDefinition<TContext, TEventType, TStateId>,
  ): SessionMachine<TContext, TEventType, TStateId>;
}

/**
 * Creates a session: the live store of the given slices, with computed slices, effects,
 * epics and statecharts available on it.
 *
 * @remarks The dispatch pipeline (docs/ARCHITECTURE.md): validate → envelope (`seq`, `at`) → `events$`
 * → operator middleware → reducers of every listening slice in registration order, each
 * wrapped in reducer middleware (global, then per slice) and followed by the slice's window
 * → commit, all or nothing → notify changed slices, then computed slices (once each), then
 * `committed$`, which effects and epics observe.
 *
 * - Synchronous, run to completion: when `dispatch` returns, the event is reduced and every
 *   subscriber was told (unless an operator middleware delays it on the scheduler).
 * - A throwing reducer or middleware leaves every slice unchanged, is reported on `errors$`
 *   and makes `dispatch` throw `ReducerError` (its `cause` is the original error).
 * - A dispatch from a subscriber, effect or epic while another event is processed is queued
 *   (FIFO); a dispatch from inside a reducer throws `DispatchInReducerError`.
 * - Known events: an event type that no slice reducer, installed machine, saga `startOn`, effect
 *   (`onSuccess`, `compensate`), epic (`events`), channel or `events` entry declares is rejected
 *   with `UnknownEventError` (reported on `errors$`, nothing changed, no `seq` taken) unless
 *   `unknownEvents: 'accept'`. At the type level `dispatch` accepts the events of the slices'
 *   reducers, `events` and `channels` ({@link SessionEvent}); annotate the result as `Session` for
 *   events declared only at run time (machines, `register`, later channels), or list them in `events`.
 *   Every rejected dispatch, `dispatch(null)` included, is reported on `errors$` before it throws.
 * - An effect requested with no registered handler is reported on `errors$`
 *   (`MissingEffectHandlerError`), never silently dropped.
 *
 * @throws `DuplicateSliceError` when two slices share a name.
 * @example
 * ```ts
 * const session = createSession({ slices: [Messages] });
 * session.slice(Messages).all$.subscribe((m) => console.log(m.length)); // Logs: 0
 * session.dispatch(MessageAdded({ text: 'hi' }));                       // Logs: 1
 * session.dispatch({ type: 'chat/mesageAdded', payload: { text: 'hi' } }); // compile error; at run time UnknownEventError:
 * // Event "chat/mesageAdded" is not declared in this session (did you mean "chat/messageAdded"?). Nothing was changed. ...
 * ```
 */
export function createSession<TDeps = unknown, TOptions extends SessionOptions<TDeps> = SessionOptions<TDeps>>(
  options: TOptions & SessionOptions<TDeps>,
): Session<TDeps, SessionEvent<TOptions>>;
export function createSession<TDeps = unknown>(options: SessionOptions<TDeps>): Session<TDeps> {
  const { epics, dependencies, sagas, sagaHistory: history, ...core } = options;
  const session = createCoreSession(core) as Session<TDeps>;
  const internals = session[SESSION_INTERNALS];
  // Effects, sagas and statecharts are layers the core does not import (docs/SIZE.md): their
  // definitions link them (`defineEffect`, `defineSaga`; a machine definition carries its own), so
  // a program that defines none bundles none. Effect definitions are usually made before the
  // session: then the effect runtime is installed here, as it always was.
  const withDeps = (epicOptions: EpicOptions<TDeps> = {}): EpicOptions<TDeps> =>
    epicOptions.deps === undefined && dependencies !== undefined ? { ...epicOptions, deps: dependencies } : epicOptions;
  let fx: ReturnType<EffectsLayer['install']> | undefined;
  let stopWatch: (() => void) | undefined;
  const effects = (): ReturnType<EffectsLayer['install']> | undefined => {
    if (fx === undefined) {
      const layer = linkedLayer<EffectsLayer>(EFFECTS_LAYER);
      if (layer !== undefined) {
        fx = layer.install(session, dependencies === undefined ? {} : { dependencies });
        stopWatch?.();
      }
    }
    return fx;
  };
  try {
    effects();
    for (const epic of epics ?? []) runEpic(session, epic, withDeps());
    if (sagas !== undefined || history !== undefined) {
      sagaLayer(sagas !== undefined && sagas.length === 0 && history === undefined ? 'createSession({ sagas: [] })' : 'createSession({ sagaHistory })').install(session, {
        sagas: sagas ?? [],
        deps: dependencies,
        ...(history === undefined ? {} : { history }),
      });
    }
    if (fx === undefined) stopWatch = watchEffects(session, effects);
  } catch (error) {
    session.dispose(); // nothing half-open: storages closed, a durable directory unlocked
    throw error;
  }
  /** The saga layer, installed with the session's dependencies (sagas run with them unless given others). */
  const sagas$ = (): SagaLayer | undefined => {
    const layer = linkedLayer<SagaLayer>(SAGA_LAYER);
    if (layer !== undefined && dependencies !== undefined) layer.install(session, { deps: dependencies });
    return layer;
  };
  Object.assign(session, {
    runSaga: (def: AnySagaDef, input: unknown, opts?: RunSagaOptions<TDeps>) => {
      const layer = sagas$() ?? layerOf<SagaLayer>(def, SAGA_LAYER);
      if (layer === undefined) throw new TypeError(`session.runSaga takes a saga made by defineSaga (got ${def === null ? 'null' : typeof def}).`);
      return layer.run(session, def, input, opts);
    },
    // No saga was defined in this program: none can have run here, but the session's storage may
    // hold what sagas recorded in another program.
    resumeSagas: (opts?: ResumeSagasOptions<TDeps>) => sagas$()?.resume(session, opts) ?? (withoutSagaRuntime(session, true) as never[]),
    sagaHistory: () => sagas$()?.history(session) ?? withoutSagaRuntime<SagaRecord>(session, false),
    run: (epic: Epic<TDeps>, epicOptions?: EpicOptions<TDeps>) => runEpic(session, epic, withDeps(epicOptions)),
    handle: (def: AnyEffectDef, handler: EffectHandler<any, any, TDeps>) => {
      const layer = effects();
      if (layer === undefined) throw new TypeError(`session.handle takes an effect made by defineEffect (got ${def === null ? 'null' : typeof def}).`);
      return layer.handle(def, handler);
    },
    runEffect: (effect: Effect) => {
      const layer = linkedLayer<EffectsLayer>(EFFECTS_LAYER);
      if (layer !== undefined) {
        effects();
        return layer.runEffect(session, effect);
      }
      if (internals.disposed) throw new SessionDisposedError(`run effect ${quote(effect?.type)}`);
      return runUnhandled(session, effect);
    },
    effects$: session.committed$.pipe(mergeMap((committed) => committed.effects)),
    install: ((definition: MachineDefinition<unknown, string, string> | SliceDef<string, unknown>, options?: InstallSliceOptions<unknown>) =>
      isSliceDef(definition) ? installSlice(session, definition, options) : machineLayerOf(definition).install(session, definition)) as Session<TDeps>['install'],
    machine: <TContext, TEventType extends string, TStateId extends string>(machine: MachineDefinition<TContext, TEventType, TStateId>) =>
      machineLayerOf(machine).machine(session, machine) as SessionMachine<TContext, TEventType, TStateId>,
  });
  return session;
}

/**
 * The saga layer for `createSession`'s saga options.
 * @throws {@link SagaRuntimeMissingError} when no saga was defined in this program (nothing linked
 * the layer): the option needs the saga runtime, and the error says how to attach it.
 */
function sagaLayer(option: string): SagaLayer {
  const layer = linkedLayer<SagaLayer>(SAGA_LAYER);
  if (layer === undefined) throw new SagaRuntimeMissingError(option);
  return layer;
}

/**
 * `sagaHistory()` / `resumeSagas()` in a program without the saga runtime (no `defineSaga`): the
 * session's storage may still hold what sagas recorded in another program. The runtime's slices
 * (`rxslice/sagaHistory`, `rxslice/sagas`: version 1, no migrations) are data, read through the
 * session's journals (see `SessionInternals.storedItems`): the completion records are returned
 * as stored (only the runtime writes them); unfinished sagas can only be resumed with their
 * definitions, so finding one is a refusal. `[]` when nothing is stored.
 * @throws `SessionDisposedError` after `dispose()`; {@link SagaRuntimeMissingError} from
 * `resumeSagas()` when the storage holds unfinished sagas.
 */
function withoutSagaRuntime<TItem>(session: Session<any>, resume: boolean): readonly TItem[] {
  const internals = session[SESSION_INTERNALS];
  if (internals.disposed) throw new SessionDisposedError('use sagas');
  const stored = internals.storedItems<TItem>({ name: resume ? 'rxslice/sagas' : 'rxslice/sagaHistory', version: 1, migrations: {}, initial: [] }) ?? [];
  if (resume && stored.length > 0) throw new SagaRuntimeMissingError('session.resumeSagas()', stored as never);
  return stored;
}

/**
 * Until the effect runtime is installed, the effects a commit carries go here: with an effect
 * layer linked by then (an effect was defined after the session), the runtime is installed and
 * routes them; with none, no handler can exist, and each is reported as the runtime reports it.
 */
function watchEffects(session: Session<any>, effects: () => unknown): () => void {
  const internals = session[SESSION_INTERNALS];
  const listener = {
    effectsOnly: true as const,
    onCommitted(committed: CommittedEnvelope): void {
      if (committed.effects.length === 0) return;
      // Installed meanwhile (handleEffect): its own listener has this commit.
      if (internals.extensions.has(EFFECT_RUNTIME)) return stop();
      const layer = linkedLayer<EffectsLayer>(EFFECTS_LAYER);
      if (layer === undefined) {
        for (const effect of committed.effects) for (const type of unhandledLeaves(effect as Effect)) internals.reportError(new MissingEffectHandlerError(type));
        return;
      }
      effects(); // stops this watch; the runtime's listener has the next commits
      layer.route(session, committed);
    },
  };
  const remove = internals.onCommitted(listener);
  let stopped = false;
  const stop = (): void => {
    if (stopped) return;
    stopped = true;
    remove();
  };
  internals.onDispose(stop);
  return stop;
}

/** The key under which the effect runtime keeps itself in a session (see effect-runtime.ts). */
const EFFECT_RUNTIME = /* @__PURE__ */ Symbol.for('rxslice.effects.runtime');

/**
 * The leaf effect types the effect runtime would report as unhandled when it runs `effect` in a
 * session without handlers: every leaf of `all`, the first of `race` (it settles the race), the
 * first step of `sequence` (the rest never start).
 */
function unhandledLeaves(effect: Effect): string[] {
  if (!isCompositeEffect(effect)) return [effect.type];
  switch (effect.type) {
    case 'rxslice.effect.all':
      return effect.payload.effects.flatMap(unhandledLeaves);
    case 'rxslice.effect.race':
      return effect.payload.effects.length === 0 ? [] : unhandledLeaves(effect.payload.effects[0] as Effect);
    case 'rxslice.effect.sequence': {
      const first = effect.payload.steps[0];
      return first === undefined ? [] : unhandledLeaves(typeof first === 'function' ? first(undefined) : first);
    }
  }
}

/** `session.runEffect` in a program without effect definitions: as the runtime runs it with no handler registered. */
function runUnhandled(session: Session<any>, effect: Effect): Observable<unknown> {
  return defer(() => {
    const [type] = unhandledLeaves(effect);
    if (type === undefined) return effect.type === 'rxslice.effect.all' ? of([]) : effect.type === 'rxslice.effect.race' ? EMPTY : of(undefined);
    const missing = new MissingEffectHandlerError(type);
    session[SESSION_INTERNALS].reportError(missing);
    return throwError(() => missing);
  });
}

/** A slice definition (defineSlice's shape), as opposed to a machine definition. */
function isSliceDef(value: unknown): value is SliceDef<string, unknown> {
  return value !== null && typeof value === 'object' && 'policy' in value && 'reducers' in value && Array.isArray((value as { reducers?: unknown }).reducers);
}

/**
 * The statechart functions a machine definition carries (see `MACHINE_LAYER`): the core session
 * imports no statechart code, the definition brings it.
 * @throws TypeError for a value that `defineMachine`, `setupMachine` or `fromSCXML` did not make.
 */
function machineLayerOf(definition: unknown): MachineLayer {
  const layer = layerOf<MachineLayer>(definition, MACHINE_LAYER);
  if (layer === undefined) {
    throw new TypeError(
      `session.install / session.machine take a slice from defineSlice or a machine from defineMachine, setupMachine or fromSCXML (got ${definition === null ? 'null' : typeof definition}).`,
    );
  }
  return layer;
}
