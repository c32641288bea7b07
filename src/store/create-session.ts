import type { Event } from '../events/event';
import { runEpic, type Epic, type EpicHandle, type EpicOptions } from '../effects/epic';
import type { Session as CoreSession, SessionEvent } from '../session/session-types';
import { deferredKeeper, withSnapshotMethods } from '../session/snapshot-layer';
import { linkPipelines } from '../session/define-middleware';
import { linkJournals } from '../session/journal-layer';
import { buildStore, type LayerMethods, type StoreOptions } from './create-store';

/** Options of {@link createSession}: the core options plus epics and their dependencies. */
export interface SessionOptions<TDeps = unknown> extends Omit<StoreOptions<TDeps>, 'epics'> {
  /** Epics started with the session, in order (see `runEpic`), with `dependencies` as their third argument. */
  readonly epics?: readonly Epic<TDeps>[];
}

/**
 * A live session with every layer wired in: the core store (dispatch, slices, snapshots,
 * computed slices through `session.computed`), effects and epics, and statecharts. A {@link Store}
 * (`createStore`) is the same without the snapshot methods and `run`.
 */
export interface Session<TDeps = unknown, TEvent extends Event = Event> extends CoreSession<TEvent>, LayerMethods<TDeps> {
  /** Starts an epic with the session's dependencies; returns a handle to stop it. See `runEpic`. */
  run(epic: Epic<TDeps>, options?: EpicOptions<TDeps>): EpicHandle;
}

/**
 * Creates a session: the live store of the given slices, with computed slices, snapshots, effects,
 * epics and statecharts available on it. It is `createStore` with the snapshot layer linked at
 * creation and its methods (`snapshot`, `restore`, `transaction`, `findSnapshots`,
 * `snapshotLineage`: the functions `takeSnapshot`, ... do the same), and epics (`epics`, `run`).
 * A browser app that needs neither bundles less with `createStore` (docs/SIZE.md).
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
  const { epics, ...storeOptions } = options;
  // A session takes event and operator middleware as it always did (createStore needs defineMiddleware).
  linkPipelines();
  // And storages with durable journals of any backend (createStore needs jsonl() or defineDurableStorage).
  linkJournals();
  const dependencies = options.dependencies;
  const withDeps = (epicOptions: EpicOptions<TDeps> = {}): EpicOptions<TDeps> =>
    epicOptions.deps === undefined && dependencies !== undefined ? { ...epicOptions, deps: dependencies } : epicOptions;
  // The snapshot options are checked before anything is created, as always; the layer is linked
  // into the session once it exists.
  const kept = deferredKeeper(options.snapshotStore, options.snapshotCatalogue);
  const session = buildStore(storeOptions, (store) => {
    kept.bind(store);
    // The layer's functions are closures: they are the methods (written into the slots the core
    // session declares, so it keeps its fast properties).
    withSnapshotMethods(store, kept.keeper);
    Object.assign(store, { run: (epic: Epic<TDeps>, epicOptions?: EpicOptions<TDeps>) => runEpic(store as never, epic, withDeps(epicOptions)) });
    for (const epic of epics ?? []) runEpic(store as never, epic, withDeps());
  });
  return session as unknown as Session<TDeps>;
}
