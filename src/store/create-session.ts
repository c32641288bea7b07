import type { Observable } from 'rxjs';
import type { AnyEffectDef, Effect, InferEffect, InferEffectResult } from '../effects/define-effect';
import type { EffectHandler } from '../effects/effect-handler';
import type { Epic, EpicHandle, EpicOptions } from '../effects/epic';
import type { EffectRegistration } from '../effects/effect-runtime';
import { runEffect } from '../effects/handle-effect';
import { installEffects } from '../effects/install-effects';
import type { MachineDefinition } from '../machines/machine-definition';
import type { SessionMachine } from '../machines/session-machine';
import { layerOf, MACHINE_LAYER, type MachineLayer } from '../session/feature-layers';
import type { AnySagaDef, InferSagaInput, InferSagaResult } from '../sagas/define-saga';
import { installSagas, resumeSagas, runSaga, sagaHistory } from '../sagas/run-saga';
import type { SagaHistoryOptions, SagaRecord } from '../sagas/saga-history';
import type { ResumedSaga, ResumeSagasOptions, RunSagaOptions } from '../sagas/saga-runtime';
import type { Event } from '../events/event';
import { createCoreSession } from '../session/create-core-session';
import type { Session as CoreSession, SessionEvent, SessionOptions as CoreSessionOptions } from '../session/session-types';
import { installSlice, type InstallSliceOptions } from '../session/install-slice';
import type { SliceHandle } from '../session/slice-handle';
import type { SliceDef } from '../slices/reducer';

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
  /** Resumes the unfinished sagas recorded in the session (after a restore or reopening storage). See `resumeSagas`. */
  resumeSagas(options?: ResumeSagasOptions<TDeps>): ResumedSaga[];
  /** The completion records of the finished sagas, oldest first, under the retention `sagaHistory`. See `sagaHistory`. */
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
  let fx: ReturnType<typeof installEffects<TDeps>>;
  try {
    fx = installEffects<TDeps>(session, {
      ...(epics === undefined ? {} : { epics }),
      ...(dependencies === undefined ? {} : { dependencies }),
    });
    if (sagas !== undefined || history !== undefined) installSagas(session, { sagas: sagas ?? [], deps: dependencies, ...(history === undefined ? {} : { history }) });
  } catch (error) {
    session.dispose(); // nothing half-open: storages closed, a durable directory unlocked
    throw error;
  }
  const sagaDeps = (): void => {
    // Sagas run with the session's dependencies unless given others.
    if (dependencies !== undefined) installSagas(session, { deps: dependencies });
  };
  Object.assign(session, {
    runSaga: (def: AnySagaDef, input: unknown, opts?: RunSagaOptions<TDeps>) => {
      sagaDeps();
      return runSaga(session, def, input, opts);
    },
    resumeSagas: (opts?: ResumeSagasOptions<TDeps>) => {
      sagaDeps();
      return resumeSagas(session, opts);
    },
    sagaHistory: () => sagaHistory(session),
    run: fx.run,
    handle: fx.handle,
    runEffect: (effect: Effect) => runEffect(session, effect),
    effects$: fx.effects$,
    install: ((definition: MachineDefinition<unknown, string, string> | SliceDef<string, unknown>, options?: InstallSliceOptions<unknown>) =>
      isSliceDef(definition) ? installSlice(session, definition, options) : machineLayerOf(definition).install(session, definition)) as Session<TDeps>['install'],
    machine: <TContext, TEventType extends string, TStateId extends string>(machine: MachineDefinition<TContext, TEventType, TStateId>) =>
      machineLayerOf(machine).machine(session, machine) as SessionMachine<TContext, TEventType, TStateId>,
  });
  return session;
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
