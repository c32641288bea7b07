import type { SnapshotQuery } from '../snapshot-store/read-query';
import type { SnapshotInfo } from '../snapshot-store/store-contract';
import { restoreEventOf, type Snapshot } from '../snapshots/snapshot';
import { sessionCoreOf } from './create-core-session';
import { SessionDisposedError, UnsupportedOnSharedSessionError } from './errors';
import { SNAPSHOT_LAYER } from './feature-layers';
import { SESSION_INTERNALS, type SessionInternals } from './internals';
import type { SessionCore } from './session-core';
import { SessionSnapshots, sliceNames } from './session-snapshots';
import type { SliceRef, SnapshotOptions } from './session-types';
import { findSnapshots, snapshotKeeper, snapshotLineage, type SnapshotKeeper } from './snapshot-queries';
import { LIBRARY_META, SessionRestored } from './system-events';

/** What the snapshot functions take: a session (`createSession`), a store (`createStore`) or a shared session. */
export interface SnapshotHost {
  /** @internal */
  readonly [SESSION_INTERNALS]: SessionInternals;
}

/**
 * @internal The snapshot layer of one session or store (docs/SIZE.md): `takeSnapshot`,
 * `restoreSnapshot`, `transaction`, `findSnapshots` and `snapshotLineage`, and the library's own
 * uncatalogued capture. Closures (no `this`), so `createSession` hands them out as its methods.
 */
export interface SnapshotLayer {
  snapshot(options?: SnapshotOptions): Snapshot;
  /** `snapshot(options)` neither catalogued nor saved (the library's own reads). */
  capture(options?: SnapshotOptions): Snapshot;
  restore(snapshot: Snapshot, options?: { readonly slices?: readonly SliceRef[] }): void;
  transaction<TResult>(fn: () => TResult): TResult;
  find(query?: SnapshotQuery): Promise<SnapshotInfo[]>;
  lineage(snapshot: Snapshot | string): Promise<SnapshotInfo[]>;
}

/**
 * @internal The snapshot layer of `session`, linked into it on the first call (idempotent): the
 * session's snapshot bookkeeping and its catalogue (or snapshot store) from its
 * `snapshotStore` / `snapshotCatalogue` options, checked now (`keeper` when the caller checked them).
 * @throws TypeError for a value that is not a session, store or shared session;
 * `InvalidSnapshotStoreOptionError` / `InvalidSnapshotCatalogueOptionError` for bad options.
 */
export function snapshotLayer(session: SnapshotHost, keeper?: SnapshotKeeper): SnapshotLayer {
  const internals = (session as Partial<SnapshotHost> | null | undefined)?.[SESSION_INTERNALS];
  const linked = internals?.extensions.get(SNAPSHOT_LAYER) as SnapshotLayer | undefined;
  if (linked !== undefined) return linked;
  const core = sessionCoreOf(session, 'the snapshot functions');
  const { store, catalogue } = (internals as SessionInternals).snapshotOptions;
  const layer = makeLayer(core, keeper ?? snapshotKeeper(store, catalogue, () => core.scheduler.now(), (error) => core.errors$.next(error)));
  (internals as SessionInternals).extensions.set(SNAPSHOT_LAYER, layer);
  return layer;
}

/** @internal A keeper whose clock and reports reach a session made after it (createSession checks the options first). */
export function deferredKeeper(store: unknown, catalogue: unknown): { readonly keeper: SnapshotKeeper; bind(session: SnapshotHost): void } {
  let core: SessionCore | undefined;
  const keeper = snapshotKeeper(
    store,
    catalogue,
    () => (core as SessionCore).scheduler.now(),
    (error) => core?.errors$.next(error),
  );
  return { keeper, bind: (session) => void (core = sessionCoreOf(session, 'createSession')) };
}

function makeLayer(core: SessionCore, keeper: SnapshotKeeper): SnapshotLayer {
  core.snapshots ??= new SessionSnapshots(core.registry.records, core.freeze);
  const snapshots = core.snapshots;
  const keep = keeper.keep;
  const queries = keeper.queries;
  /** `snapshot(opts)` without keeping it (what the transaction and `captureSnapshot` take). */
  const capture = (opts: SnapshotOptions | undefined): Snapshot => {
    // No options: the state slices, untagged (no option object to read).
    if (opts === undefined) return snapshots.take(core.lastSeq, core.scheduler.now(), undefined, false);
    const include = sliceNames(opts.include, 'snapshot option "include"');
    const exclude = sliceNames(opts.exclude, 'snapshot option "exclude"');
    const selection = include === undefined && exclude === undefined ? undefined : { include, exclude };
    return snapshots.take(core.lastSeq, core.scheduler.now(), opts.tag, opts.includeLogs === true, selection);
  };
  const restore = (snapshot: Snapshot, opts?: { readonly slices?: readonly SliceRef[] }): void => {
    if (core.disposed) throw new SessionDisposedError('restore a snapshot');
    if (core.forward !== undefined) throw new UnsupportedOnSharedSessionError('restore');
    // A whole snapshot this session took: nothing to check or copy (see `prepareRestore`).
    const names = opts === undefined ? snapshots.namesOfOwn(snapshot) : undefined;
    if (names !== undefined) return restoreInto(core, snapshot, names, snapshot.id);
    const checked = snapshots.prepareRestore(snapshot, opts);
    restoreInto(core, checked.snapshot, checked.names, checked.id);
  };
  return {
    capture,
    restore,
    snapshot(opts) {
      const snapshot = capture(opts);
      // Catalogued (a slot of a ring) or handed to the store: see `snapshotKeeper`.
      if (keep !== undefined) keep(snapshot);
      return snapshot;
    },
    transaction<TResult>(fn: () => TResult): TResult {
      if (core.disposed) throw new SessionDisposedError('run a transaction');
      if (core.forward !== undefined) throw new UnsupportedOnSharedSessionError('transaction');
      // The rollback point is the library's: not catalogued, not saved to a store (and restoring
      // it leaves the lineage of later snapshots as it was).
      const before = snapshots.rollbackPoint(core.lastSeq, core.scheduler.now());
      // Listeners (an attached checkpointer) hold back what a rollback may still undo until the
      // outermost transaction ends.
      const id = ++core.transactionCount;
      tellTransaction(core, id, true, true);
      let open = true;
      const end = (committed: boolean): void => {
        if (!open) return;
        open = false;
        tellTransaction(core, id, false, committed);
      };
      const rollback = (error: unknown): never => {
        try {
          if (!core.disposed) restore(before);
        } finally {
          end(false);
        }
        throw error;
      };
      let result: TResult;
      try {
        result = fn();
      } catch (error) {
        return rollback(error);
      }
      if (result !== null && typeof result === 'object' && typeof (result as { then?: unknown }).then === 'function') {
        return (result as unknown as PromiseLike<unknown>).then((value) => {
          end(true);
          return value;
        }, rollback) as TResult;
      }
      end(true);
      return result;
    },
    find: (query) => findSnapshots(queries, query),
    lineage: (snapshot) => snapshotLineage(queries, snapshot),
  };
}

/** Dispatches the restored event of `snapshot` for `names` (checked by the caller). */
function restoreInto(core: SessionCore, snapshot: Snapshot, names: readonly string[], snapshotId: string | undefined): void {
  // One (frozen) event per snapshot restored again with the same names: no allocation but the envelope.
  const event = restoreEventOf(snapshot, names, snapshotId, restoredEvent);
  const env = core.accept(event, LIBRARY_META, true);
  if (!core.busy && core.forward === undefined) {
    // Reduced now, before this returns (library events bypass the operator middleware).
    core.restoringNow = snapshot;
    core.restoringNowSeq = env.seq;
    try {
      core.dispatchEnvelope(env);
    } finally {
      core.restoringNow = undefined;
      core.restoringNowSeq = -1;
    }
    return;
  }
  // Queued behind the envelope being processed: its reduce step (or dispose) deletes the entry.
  core.restoring.set(env.seq, snapshot);
  core.dispatchEnvelope(env);
}

/** The `rxslice.session.restored` event of restoring `names` of `snapshot` (see `restoreEventOf`). */
function restoredEvent(snapshot: Snapshot, names: readonly string[], snapshotId: string | undefined): ReturnType<typeof SessionRestored> {
  return SessionRestored({ slices: names, fromSeq: snapshot.seq, tag: snapshot.tag, ...(snapshotId === undefined ? {} : { snapshotId }) });
}

/** Counts a transaction in (`begin`) or out, and tells the transaction listeners; a listener that throws is reported. */
function tellTransaction(core: SessionCore, id: number, begin: boolean, committed: boolean): void {
  core.transactionDepth += begin ? 1 : -1;
  if (core.transactionListeners.length === 0) return;
  const depth = core.transactionDepth;
  for (const listener of [...core.transactionListeners]) {
    try {
      if (begin) listener.onTransactionBegin(id, depth);
      else listener.onTransactionEnd(id, committed, depth);
    } catch (error) {
      core.reportSubscriberFailure('transaction', error);
    }
  }
}

/**
 * @internal `takeSnapshot(session, options)` neither catalogued nor saved to the snapshot store:
 * the library's own reads (flight recorder, devtools), so they do not crowd out the user's
 * snapshots. Links the snapshot layer as `takeSnapshot` does.
 */
export function captureSnapshot(session: SnapshotHost, options?: SnapshotOptions): Snapshot {
  return snapshotLayer(session).capture(options);
}

/**
 * @internal Links the snapshot layer into `session` and writes its functions into the slots of
 * the session's snapshot methods (`snapshot`, `restore`, `transaction`, `findSnapshots`,
 * `snapshotLineage`): what makes a core session a full one (`createSession`, a recording's
 * replay sessions and forks, a shared session's local one). The slots exist from the start, so
 * the session keeps its fast properties. Returns `session`.
 */
export function withSnapshotMethods<TSession extends SnapshotHost>(session: TSession, keeper?: SnapshotKeeper): TSession {
  const layer = snapshotLayer(session, keeper);
  Object.assign(session, {
    snapshot: layer.snapshot,
    restore: layer.restore,
    transaction: layer.transaction,
    findSnapshots: layer.find,
    snapshotLineage: layer.lineage,
  });
  return session;
}
