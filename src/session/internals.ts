import type { Event } from '../events/event';
import type { Envelope, EnvelopeMeta } from '../events/envelope';
import type { RxSliceError } from '../internal/errors';
import type { TeardownLogic } from 'rxjs';
import type { ReducerEntry, SliceDef } from '../slices/reducer';
import type { Snapshot } from '../snapshots/snapshot';
import type { CommittedEnvelope } from './committed-envelope';
import type { SnapshotOptions } from './session-types';
import type { StoredSliceDef } from '../storage/slice-storage';

/** @internal Key of the hooks that other layers (computed, effects, machines) use. */
export const SESSION_INTERNALS: unique symbol = Symbol.for('rxslice.session.internals');

/**
 * @internal Declarations that look like slices but are not (computed slices) carry this key:
 * a function making the error to throw when one is registered or read as a slice.
 */
export const NOT_A_SLICE: unique symbol = Symbol.for('rxslice.notASlice');

/**
 * @internal Declarations that a session can open without knowing their layer (computed slices
 * and families) carry this key: `def[ATTACH](session)` returns their live handle in `session`
 * (the `Attachable` interface, in ./session-types.ts).
 */
export const ATTACH: unique symbol = Symbol.for('rxslice.attach');

/** @internal Throws the declaration's own error when `def` carries {@link NOT_A_SLICE}. */
export function rejectNotASlice(def: object, operation: string): void {
  const reject = (def as { readonly [NOT_A_SLICE]?: (operation: string) => Error })[NOT_A_SLICE];
  if (reject !== undefined) throw reject(operation);
}

/**
 * @internal Told once per publish with the names of the slices that changed. An object with a
 * method rather than a closure: the session's publish code calls every session's listeners
 * through the same prototype method, so V8 keeps that code optimized from one session to the
 * next (a call to one closure would tie the optimized code to the session that made it).
 */
export interface CommitListener {
  onCommit(changed: ReadonlySet<string>): void;
}

/** @internal Told every committed envelope, just before `committed$` emits it. An object for the reason given at {@link CommitListener}. */
export interface CommittedListener {
  onCommitted(committed: CommittedEnvelope): void;
  /**
   * When set, the listener is told only the commits of these event types, and the session
   * builds the committed envelope of another commit only if someone else reads it.
   */
  readonly types?: ReadonlySet<string>;
  /**
   * True when the listener only reads `committed.effects`: it is then told only the commits
   * that carry effects (or that someone else made the envelope for), and a session whose
   * listeners are all like this builds no committed envelope for a commit without effects.
   */
  readonly effectsOnly?: boolean;
}

/**
 * @internal Consulted before the slices' reducers of every non-library envelope (installed
 * machines decide this way). An object with a method for the reason given at {@link CommitListener}.
 */
export interface EnvelopeDecider {
  /**
   * Runs with dispatch forbidden, before any reducer of `env`. Returns `undefined` to let the
   * envelope through, or a rejection: nothing changes, `error` is reported on `errors$`, and
   * `dispatch` throws it (as is, not wrapped) when `throws`. A decider that throws fails the
   * envelope like a throwing reducer (`ReducerError`).
   */
  decide(env: Envelope): { readonly error: RxSliceError; readonly throws: boolean } | undefined;
}

/**
 * @internal Told when a `session.transaction` begins and ends (nested ones too), so that a layer
 * above can tell work a rollback may still undo from work the session committed. An object for the
 * reason given at {@link CommitListener}.
 */
export interface TransactionListener {
  /**
   * Transaction `id` (unique in the session) began; `depth` counts the open ones, this one
   * included. Async transactions may overlap without nesting, so their ends need not come in
   * the reverse order of their beginnings: match them by `id`.
   */
  onTransactionBegin(id: number, depth: number): void;
  /**
   * Transaction `id` ended: `committed` when its function returned (or its promise resolved), false
   * when it was rolled back (its restore already committed and published). `depth` counts the
   * transactions still open (0: none).
   */
  onTransactionEnd(id: number, committed: boolean, depth: number): void;
}

/** @internal A slice's committed content as a computed node reads it (its storage). */
export interface SliceSource {
  readonly version: number;
  all(): readonly unknown[];
}

/** @internal Hooks into a session for the library's own higher layers. Not public API. */
export interface SessionInternals {
  /** Runs after changed slices were notified and before `committed$` (once per commit or batch). */
  onCommit(listener: CommitListener): () => void;
  version(slice: string): number;
  /**
   * The live source of `slice` for readers that poll it on every commit (computed nodes): its
   * `version` and committed items (`all()`, the same array until the version changes), read
   * by reference instead of looked up by name each time. @throws SliceNotRegisteredError
   */
  sliceSource(slice: string): SliceSource;
  /** Whether `slice` only had items appended since its version `version` (false when its storage cannot tell). */
  appendedOnlySince(slice: string, version: number): boolean;
  /** Whether the session deep-freezes what enters it (items, and so computed values). */
  readonly freeze: boolean;
  hasSlice(slice: string): boolean;
  reportError(error: RxSliceError): void;
  /**
   * `session.snapshot(options)` for the library's own reads (flight recorder, devtools): the
   * session neither catalogues it nor hands it to its snapshot store, so they do not crowd out
   * the user's snapshots. Needs the snapshot layer linked (a session always has it; a store once a
   * snapshot function was called on it, see `snapshotLayer`). @throws TypeError otherwise.
   */
  captureSnapshot(options?: SnapshotOptions): Snapshot;
  /** The `snapshotStore` and `snapshotCatalogue` options, as given: the snapshot layer reads them when it is linked. */
  readonly snapshotOptions: { readonly store: unknown; readonly catalogue: unknown };
  /** Reports a subscriber of `source` (e.g. `computed "total" value$`) that threw: `errors$`, else RxJS's unhandled-error hook. */
  reportSubscriberFailure(source: string, error: unknown): void;
  /** Restored events accepted but not reduced yet (each holds its snapshot until then). For tests and diagnostics. */
  readonly pendingRestores: number;
  /**
   * Makes the next accepted envelope's `seq` equal `seq` (an integer above every `seq` handed
   * out so far), so that a replay (a flight recording, a shared log) reduces envelopes under
   * their recorded numbers. @throws RangeError otherwise, or while an envelope is processed.
   */
  skipTo(seq: number): void;
  /**
   * Turns the session into the local view of a shared log (event sourcing): from now on every
   * envelope accepted here (`dispatch`, library events, effects) is handed to `forward` with
   * `seq` 0 instead of being reduced, and envelopes are reduced only through `applyLogged`.
   * `restore` and `transaction` then throw (their snapshot cannot travel through a log).
   */
  forwardTo(forward: (env: Envelope) => void): void;
  /**
   * Reduces an envelope read from the shared log under its logged `seq` (see `forwardTo`).
   * @throws the {@link ReducerError} when its reducers failed (nothing changed); RangeError for a
   * `seq` not above every `seq` so far.
   */
  applyLogged(env: Envelope): void;
  /**
   * Dispatches an application event with `meta` the library built for this dispatch alone (an
   * epic's or effect's `{ source, causationId, correlationId }`): `meta` is taken as it is, not
   * copied (nobody else holds it); the event is checked as `session.dispatch` checks it.
   */
  dispatchWithOwnMeta<TEvent extends Event>(event: TEvent, meta: EnvelopeMeta): Envelope<TEvent>;
  /**
   * Dispatches an application event whose payload library code built from data it had already
   * validated (`rxslice watch`: the events `parseLine` made of a transcript line its line schema
   * accepted), so the payload is not validated against the event's schema a second time. Every
   * other check of `session.dispatch` stays (known type, copy of type, payload and meta), and so
   * does the check of what the reducers return. Never for data from outside the library's own parse.
   */
  dispatchTrusted<TEvent extends Event>(event: TEvent, meta?: EnvelopeMeta): Envelope<TEvent>;
  /**
   * Runs `fn` as one durable batch: as `session.batch` (the changed slices, commit listeners and
   * `committed$` are told once `fn` returns), and the journals that can (`StorageJournal.deferWrites`)
   * keep the records of the events committed meanwhile in memory and write them in one go when
   * `fn` returns or throws, before anyone is told. Each event is still its own commit and record:
   * a process killed meanwhile loses the records held, and a reopen finds the state after a
   * prefix of the committed events. For library code that reports nothing before the batch ends
   * (`rxslice watch` applying a run of transcript lines): a dispatch in `fn` returns before its
   * record is written. Nested calls join the outermost.
   * @throws the session's `StorageFailedError` when the write fails (fatal; nothing committed in
   * the batch is published then).
   */
  durableBatch<TResult>(fn: () => TResult): TResult;
  /** Dispatches a library event (`rxslice.*`), skipping the reserved-prefix check. */
  dispatchSystem<TEvent extends Event>(event: TEvent, meta?: EnvelopeMeta): Envelope<TEvent>;
  readonly disposed: boolean;
  /**
   * Tells `listener` once, when the session's durable storage fails (fatal: the envelopes still
   * queued are dropped, and every later dispatch throws the same error). For the layers that wait
   * for a queued envelope to commit (sagas). Returns a function that removes it.
   */
  onStorageFailure(listener: (error: RxSliceError) => void): () => void;
  onDispose(teardown: TeardownLogic): void;
  /**
   * The items a journal of the session holds for the slice `def.name` when no storage opened it
   * from there (see `StorageJournal.peek`), or `undefined` when none holds it (memory storage).
   * How the session reads stored library slices whose layer this program did not load.
   */
  storedItems<TItem>(def: StoredSliceDef<TItem>): readonly TItem[] | undefined;
  /** Registers a slice after creation (machines install theirs this way). @throws DuplicateSliceError */
  addSlice(def: SliceDef<string, any>): void;
  /**
   * Adds a reducer to `slice` for `eventType` (library `rxslice.*` types included), or for
   * every non-library event when `eventType` is `'*'` (run after the typed reducers).
   * Returns a function that removes it.
   */
  addReducer(slice: string, entry: ReducerEntry<any>): () => void;
  /**
   * Adds event types to the ones the session knows (docs/ARCHITECTURE.md, "Known events"), as
   * exact `'types'` (default) or as a machine's SCXML `'descriptors'` (`error` also names
   * `error.execution`; `'*'` names nothing). The set only grows.
   */
  declareEvents(types: Iterable<string>, as?: 'types' | 'descriptors'): void;
  /**
   * Tells `listener` every committed envelope, just before `committed$` emits it (cheaper
   * than a `committed$` subscription on the hot path). Returns a function that removes it.
   */
  onCommitted(listener: CommittedListener): () => void;
  /** Open `session.transaction` calls, nested ones included (0 outside any). */
  readonly transactionDepth: number;
  /**
   * Tells `listener` when each `session.transaction` begins and ends (see {@link TransactionListener}).
   * A listener that throws is reported on `errors$` (source `'transaction'`); the transaction's
   * outcome does not change. Returns a function that removes it.
   */
  onTransaction(listener: TransactionListener): () => void;
  /** Adds a decider consulted before the reducers of every non-library envelope (see {@link EnvelopeDecider}). Returns a function that removes it. */
  addDecider(decider: EnvelopeDecider): () => void;
  /** Per-session registry for higher layers (computed handles, installed machines, effect runners). */
  readonly extensions: Map<unknown, unknown>;
}
