import type { SchedulerLike } from 'rxjs';
import type { EventCreator } from '../events/event';
import type { AnyChannelDef } from '../events/define-channel';
import type { SliceDef } from '../slices/reducer';
import type { SnapshotCatalogueOptions } from '../snapshot-store/snapshot-catalogue';
import type { SnapshotStore } from '../snapshot-store/snapshot-store';
import type { StorageFactory } from '../storage/slice-storage';
import type { EventMiddleware } from './event-pipeline';
import type { MiddlewareSet } from './middleware-set';

// The options of a core session (`createSession` / `createStore`), declared apart from the
// Session interface (./session-types.ts), which re-exports them.

/** When event payloads (and reducer output) are validated against their schemas. */
export type ValidationMode = 'always' | 'dev' | 'off';

/** Options of {@link createSession}. */
export interface SessionOptions {
  /** The slices of the session, in registration order (which is also reducer order per event). */
  readonly slices: readonly SliceDef<string, any>[];
  /**
   * Operator middleware on the envelope stream and reducer middleware around every reducer.
   *
   * Operator middleware sees application events only: library events (`rxslice.*`) bypass it
   * (they still appear on `events$` and `committed$`), so a filter cannot drop a restore or a
   * transaction's rollback. An operator that throws or errors while an event is fed in rejects
   * that event (`dispatch` throws a {@link ReducerError} with `reducerName` `'operator middleware'`,
   * reported on `errors$`); a later failure (after a delay) is reported on `errors$`. Either way
   * the chain is resubscribed before the next event, however often it fails (also when it
   * completed); envelopes it held when it failed are lost with it. An envelope that leaves the
   * middleware must carry an application event (a forged `rxslice.*` type is rejected the same way).
   *
   * Event middleware: functions `(envelope, next) => void` that see each application event once,
   * before the operator middleware, in order (see {@link EventMiddleware}). The cheap kind for
   * what runs once per event; a throw rejects the event as an operator failure does
   * (`reducerName` `'event middleware'`). `session.use(...)` adds middleware of every kind later.
   */
  readonly middleware?: MiddlewareSet;
  /**
   * Event creators the session knows beside those its slices' reducers handle: their types may be
   * dispatched (for epics, effects, channels or `committed$` listeners) and their schemas validate
   * dispatches even when no reducer listens to them.
   */
  readonly events?: readonly EventCreator<string, any>[];
  /**
   * What `dispatch` does with an event whose type nothing in the session declares (no slice
   * reducer, machine, saga, effect, channel or `events` entry; docs/ARCHITECTURE.md, "Known
   * events"): `'reject'` (default) throws {@link UnknownEventError}, reported on `errors$`, nothing
   * changed, no `seq` taken; `'accept'` commits it like any other event (as a catch-all store would).
   */
  readonly unknownEvents?: 'reject' | 'accept';
  /** Source of time for envelopes, windows and effects. Default `asyncScheduler`. */
  readonly scheduler?: SchedulerLike;
  /**
   * `'always'`, `'off'`, or `'dev'` (default): validate unless `process.env.NODE_ENV === 'production'`.
   * Covers event payloads and reducer output; seeds, restores and JSON snapshots are always validated.
   *
   * With validation on, each item a reducer returns is replaced by its schema's output (defaults
   * and transforms applied, unknown keys stripped) and must be plain JSON data (no cycles, BigInt,
   * functions, symbols, non-finite numbers, `undefined` or holes in arrays, class instances,
   * nesting past 512 levels): what a slice holds is then exactly what its JSON round trip
   * restores, and a bad item fails the event (`ReducerError` caused by `InvalidSliceItemError`).
   * (A transform must map its own output to itself, as reading a snapshot parses the item again.)
   * With `'off'`, items are stored as returned, unchecked and uncopied.
   */
  readonly validation?: ValidationMode;
  /**
   * Deep-freeze items entering the session, the arrays handed to readers and the entries of
   * snapshots. Default: on unless `process.env.NODE_ENV === 'production'` (as Redux Toolkit's
   * dev-only checks do); readers always get read-only arrays for log slices.
   */
  readonly freeze?: boolean;
  /**
   * Storage: one factory for every slice (`storage: jsonl({ dir })`), or one per policy
   * (`{ state: memory(), log: jsonl({ dir }) }`). Default: `memory({ freeze })` for both.
   */
  readonly storage?: StorageFactory | { readonly state?: StorageFactory; readonly log?: StorageFactory };
  /**
   * Channels opened with the session, so their replay buffers hold every event from the first
   * (`session.channel(def)` opens one later, buffering from then on).
   */
  readonly channels?: readonly AnyChannelDef[];
  /**
   * A snapshot store (`createSnapshotStore()` from `rxslice/snapshot-store`) that takes every
   * snapshot `session.snapshot()` returns (`store.save`, started at once and not awaited: a
   * store that runs operations in call order, as `createSnapshotStore` does, answers a
   * `findSnapshots` called afterwards with it; a failed save is a `SnapshotSaveError` on
   * `errors$`), and that `session.findSnapshots` and `session.snapshotLineage` answer from. It
   * replaces the session's own catalogue (see `snapshotCatalogue`); its retention is `store.forget`.
   */
  readonly snapshotStore?: SnapshotStore;
  /**
   * The catalogue a session without `snapshotStore` keeps of the snapshots `session.snapshot()`
   * returns, for `session.findSnapshots` and `session.snapshotLineage`: by default the last
   * **100** (`{ keepLast: 100 }`), optionally also no older than `maxAgeMs` (scheduler time);
   * `false` keeps none (both queries then reject with `NoSnapshotStoreError`).
   *
   * Cataloguing costs O(1) per snapshot (one slot of a ring; ids and slice names are read at query
   * time) and copies nothing: a snapshot shares the slices' contents, so the catalogue holds at
   * most `keepLast` past versions of each slice alive (none more while the state does not change).
   * The library's own snapshots are not catalogued: `session.transaction`'s rollback point (tag
   * `rxslice.transaction`), the flight recorder's and the Redux DevTools bridge's. Tags match with
   * a built-in glob (`*`, `?`, `**`, `[a-z]`, `[^a]`, `{a,b}`, leading `!`, picomatch's meaning);
   * the core does not load picomatch.
   * @throws {@link InvalidSnapshotCatalogueOptionError} from `createSession` for `keepLast` not an
   * integer ≥ 1, `maxAgeMs` not > 0, or this option given with `snapshotStore`.
   */
  readonly snapshotCatalogue?: SnapshotCatalogueOptions | false;
}
