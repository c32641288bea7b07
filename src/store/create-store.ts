import { defer, EMPTY, mergeMap, of, throwError, type Observable } from 'rxjs';
import type { AnyEffectDef, Effect, InferEffect, InferEffectResult } from '../effects/define-effect';
import type { EffectHandler } from '../effects/effect-handler';
import type { EffectRegistration } from '../effects/effect-runtime';
import { isCompositeEffect } from '../effects/compose';
import { MissingEffectHandlerError } from '../effects/errors';
import type { MachineDefinition } from '../machines/machine-definition';
import type { SessionMachine } from '../machines/session-machine';
import type { AnySagaDef, InferSagaInput, InferSagaResult } from '../sagas/define-saga';
import type { SagaHistoryOptions, SagaRecord } from '../sagas/saga-history';
import type { ResumedSaga, ResumeSagasOptions, RunSagaOptions } from '../sagas/saga-runtime';
import { codedMessage } from '../internal/coded-message';
import { DEV } from '../internal/dev';
import type { Event } from '../events/event';
import type { CommittedEnvelope } from '../session/committed-envelope';
import { createCoreSession } from '../session/create-core-session';
import { SagaRuntimeMissingError, SessionDisposedError } from '../session/errors';
import { EFFECTS_LAYER, layerOf, linkedLayer, MACHINE_LAYER, SAGA_LAYER, type EffectsLayer, type MachineLayer, type SagaLayer } from '../session/feature-layers';
import { SESSION_INTERNALS } from '../session/internals';
import type { CoreStore, Session as CoreSession, SessionEvent, SessionOptions as CoreSessionOptions } from '../session/session-types';
import { installSlice, type InstallSliceOptions } from '../session/install-slice';
import type { SliceHandle } from '../session/slice-handle';
import type { SliceDef } from '../slices/reducer';
import { quote } from '../internal/quote';

/**
 * Options of {@link createStore}: the core options (slices, storage, middleware, channels, ...),
 * the effect handlers' and sagas' dependencies, and sagas. `createSession` adds `epics`.
 * On a store, `middleware` with `events` or `operators` needs their runtime linked by
 * `defineMiddleware` (`createStore({ middleware: defineMiddleware({ operators }) })`); without it
 * `createStore` throws a `TypeError` that names it. Reducer middleware needs nothing.
 */
export interface StoreOptions<TDeps = unknown> extends CoreSessionOptions {
  /**
   * Not on a store: start epics with `runEpic(store, epic)` (or use `createSession({ epics })`).
   * @throws TypeError when given.
   */
  readonly epics?: never;
  /** Passed to every effect handler (`ctx.deps`), every saga and (with `createSession`) every epic (third argument). */
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
 * The session methods of the feature layers: effects, epics, sagas and statecharts (reached
 * through their definitions, so a bundle holds only those the app defines). `Session` and
 * {@link Store} both have them, but for `run` (epics), which only `Session` has.
 */
export interface LayerMethods<TDeps = unknown> {
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
 * A live store: a `Session` without the snapshot methods (`snapshot`, `restore`, `transaction`,
 * `findSnapshots`, `snapshotLineage`) and without epics (`run`): calling one is a compile error.
 * The functions `takeSnapshot`, `restoreSnapshot`, `transaction`, `findSnapshots`,
 * `snapshotLineage` and `runEpic` do the same on a store (and on a session), and bring their code
 * into a bundle only when the app imports them (docs/SIZE.md).
 */
export interface Store<TDeps = unknown, TEvent extends Event = Event> extends CoreStore<TEvent>, LayerMethods<TDeps> {}

/**
 * Creates a store: the live session of the given slices (dispatch, batch, slices, computed slices,
 * subscribe, `errors$`, storage, middleware, channels; effects, sagas and statecharts through their
 * definitions), without the snapshot methods and epics, whose code a browser bundle then leaves out
 * (`createSession` is this plus those). Snapshots: `takeSnapshot(store)`, `restoreSnapshot(store, s)`,
 * `transaction(store, fn)`, `findSnapshots(store, q)`, `snapshotLineage(store, s)`; epics:
 * `runEpic(store, epic)`. The first of them called on a store links its layer into the store,
 * with the same semantics, errors and audit events as the session's methods. Event and operator
 * middleware (`middleware: { events, operators }`, `store.use({ ... })`) need their runtime,
 * which `defineMiddleware` links into the program (as `validationMiddleware` and `createSession` do).
 *
 * @remarks Everything `createSession` documents about the dispatch pipeline holds (synchronous,
 * all or nothing per event, re-entrant dispatches queued, known events). The `snapshotStore` and
 * `snapshotCatalogue` options are read when the snapshot layer is linked (the first snapshot
 * function called on the store): a bad value is refused then, by that call.
 * Durable storage reopens as with `createSession` (its journals restore the slices; no snapshot
 * code is needed for that).
 * @throws `DuplicateSliceError` when two slices share a name; the errors `createSession` throws
 * for its options (`sagas`, `sagaHistory`, `channels`), with nothing left open; `TypeError` for
 * `middleware` with `events` or `operators` in a program that linked no middleware runtime
 * (see `defineMiddleware`).
 * @example
 * ```ts
 * const store = createStore({ slices: [Messages] });
 * store.slice(Messages).all$.subscribe((m) => console.log(m.length)); // Logs: 0
 * store.dispatch(MessageAdded({ text: 'hi' }));                       // Logs: 1
 * const before = takeSnapshot(store, { includeLogs: true }); // links the snapshot layer into this store
 * store.dispatch(MessageAdded({ text: 'again' }));                    // Logs: 2
 * restoreSnapshot(store, before, { slices: [Messages] });             // Logs: 1
 * // store.snapshot() — compile error: Property 'snapshot' does not exist on type 'Store<...>'
 * ```
 */
export function createStore<TDeps = unknown, TOptions extends StoreOptions<TDeps> = StoreOptions<TDeps>>(
  options: TOptions & StoreOptions<TDeps>,
): Store<TDeps, SessionEvent<TOptions>>;
export function createStore<TDeps = unknown>(options: StoreOptions<TDeps>): Store<TDeps> {
  if ((options as { epics?: unknown } | undefined)?.epics !== undefined) throw new TypeError(!DEV ? codedMessage('E36', 'epics') : 'createStore takes no epics: start them with runEpic(store, epic), or use createSession({ epics }).');
  return buildStore(options, undefined) as unknown as Store<TDeps>;
}

/**
 * @internal The store of `options`, with `beforeSagas` called on it (`createSession` links the
 * snapshot layer and starts its epics there: after the effect runtime, before the sagas, as
 * always) inside the same guard: whatever throws, the store is disposed before the error goes on.
 */
export function buildStore<TDeps>(options: StoreOptions<TDeps>, beforeSagas: ((session: LayerSession<TDeps>) => void) | undefined): LayerSession<TDeps> {
  const { dependencies, sagas, sagaHistory: history, ...core } = options;
  const session = createCoreSession(core) as LayerSession<TDeps>;
  const internals = session[SESSION_INTERNALS];
  // Effects, sagas and statecharts are layers the core does not import (docs/SIZE.md): their
  // definitions link them (`defineEffect`, `defineSaga`; a machine definition carries its own), so
  // a program that defines none bundles none. Effect definitions are usually made before the
  // session: then the effect runtime is installed here, as it always was.
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
    beforeSagas?.(session);
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
      if (layer === undefined) throw new TypeError(!DEV ? codedMessage('E37', `runSaga ${def === null ? 'null' : typeof def}`) : `session.runSaga takes a saga made by defineSaga (got ${def === null ? 'null' : typeof def}).`);
      return layer.run(session, def, input, opts);
    },
    // No saga was defined in this program: none can have run here, but the session's storage may
    // hold what sagas recorded in another program.
    resumeSagas: (opts?: ResumeSagasOptions<TDeps>) => sagas$()?.resume(session, opts) ?? (withoutSagaRuntime(session, true) as never[]),
    sagaHistory: () => sagas$()?.history(session) ?? withoutSagaRuntime<SagaRecord>(session, false),
    handle: (def: AnyEffectDef, handler: EffectHandler<any, any, TDeps>) => {
      const layer = effects();
      if (layer === undefined) throw new TypeError(!DEV ? codedMessage('E38', `handle ${def === null ? 'null' : typeof def}`) : `session.handle takes an effect made by defineEffect (got ${def === null ? 'null' : typeof def}).`);
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
      isSliceDef(definition) ? installSlice(session, definition, options) : machineLayerOf(definition).install(session, definition)) as LayerSession<TDeps>['install'],
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
function withoutSagaRuntime<TItem>(session: LayerSession<any>, resume: boolean): readonly TItem[] {
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
function watchEffects(session: LayerSession<any>, effects: () => unknown): () => void {
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
function runUnhandled(session: LayerSession<any>, effect: Effect): Observable<unknown> {
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
      !DEV
        ? codedMessage('E39', definition === null ? 'null' : typeof definition)
        : `session.install / session.machine take a slice from defineSlice or a machine from defineMachine, setupMachine or fromSCXML (got ${definition === null ? 'null' : typeof definition}).`,
    );
  }
  return layer;
}

/** @internal What `buildStore` makes: the core session with the layer methods filled in (the snapshot methods and `run` are still empty slots). */
export type LayerSession<TDeps = unknown> = CoreSession & LayerMethods<TDeps>;
