import type pg from 'pg';
import type { Observable, SchedulerLike, TeardownLogic } from 'rxjs';
import type { Event, EventCreator } from '../events/event';
import type { Envelope, EnvelopeMeta } from '../events/envelope';
import type { AnyChannelDef, ChannelDef } from '../events/define-channel';
import type { RxSliceError } from '../internal/errors';
import type { EvictedItems, Session, SnapshotOptions, ValidationMode } from '../session/session-types';
import type { CommittedEnvelope } from '../session/committed-envelope';
import type { Attachable } from '../session/session-types';
import type { Channel } from '../events/channel-runtime';
import type { SliceHandle } from '../session/slice-handle';
import type { ReducerMiddleware, SessionReader, SliceDef } from '../slices/reducer';
import type { Snapshot } from '../snapshots/snapshot';
import type { AnySagaDef } from '../sagas/define-saga';

// The public shapes of rxslice/storage/postgres: options, the shared session, what dispatch resolves with.

/** Where the log lives: a connection string (rxslice makes and ends its own pool) or your `pg.Pool`. */
export type PostgresConnection = { readonly connectionString: string; readonly max?: number } | { readonly pool: pg.Pool };

/** Options of {@link createSharedSession}. */
export interface SharedSessionOptions {
  /** The slices, as for `createSession`; every process of the session must pass the same definitions. */
  readonly slices: readonly SliceDef<string, any>[];
  /** The session's id in the log (any non-empty string up to 200 characters). */
  readonly sessionId: string;
  /**
   * Where the shared log is: `{ connectionString, max? }` (a pool of at most `max` clients,
   * default 6, at least 3, is opened for this session) or an existing `{ pool }` (max at least 3).
   * Sessions of a process that pass the same `pool` share it, and with it one LISTEN connection
   * per `tablePrefix` and one lease connection: pass one pool to open many sessions.
   */
  readonly postgres: PostgresConnection;
  /** Table names are `<tablePrefix>_events`, `_sessions`, `_snapshots`, `_schema_version`. Default `'rxslice'`. */
  readonly tablePrefix?: string;
  /** PostgreSQL schema of the tables. Default `'public'`. */
  readonly schema?: string;
  /** Event creators whose schemas validate dispatches (as for `createSession`). */
  readonly events?: readonly EventCreator<string, any>[];
  /** Reducer middleware (it runs in every process; operator middleware is not offered: it could delay or drop events differently per process). */
  readonly middleware?: { readonly reducers?: readonly ReducerMiddleware[] };
  /** Scheduler of the local session (envelope `at`, windows, effects). Default `asyncScheduler`. */
  readonly scheduler?: SchedulerLike;
  /** Payload validation on dispatch, as `createSession({ validation })`. */
  readonly validation?: ValidationMode;
  /** Deep-freeze items entering the session and the arrays handed to readers, as `createSession({ freeze })`. */
  readonly freeze?: boolean;
  /** Channels opened with the session (their replay buffers fill from the first event this process applies). */
  readonly channels?: readonly AnyChannelDef[];
  /**
   * Runs once in every process, on the local session before the log is read: install what
   * reduces events there (statecharts with `installMachine`, extra reducers). Must be the same in
   * every process.
   */
  readonly install?: (session: Session) => void;
  /**
   * Runs in the one process that holds the session's effect lease, once it has caught up with the
   * log: install effects and epics here (`installEffects`, `runEpic`). What it returns is torn
   * down when the lease is lost or the session disposed. Events they dispatch are appended to the log.
   */
  readonly onLease?: (session: Session) => TeardownLogic | void;
  /** Sagas of the session: their progress slice lives in every process; they run (and resume from their log) in the lease holder. */
  readonly sagas?: readonly AnySagaDef[];
  /** Dependencies of the sagas' steps (`ctx.deps`). */
  readonly dependencies?: unknown;
  /** The lease holder stores a snapshot of the whole state every this many events. Default 1,000; 0 turns it off. */
  readonly snapshotEvery?: number;
  /** Snapshots kept per session (older ones are deleted). Default 2. */
  readonly snapshotsToKeep?: number;
  /** Largest snapshot read at start, in characters. Default 512 MiB. */
  readonly snapshotMaxBytes?: number;
  /** Polling behind LISTEN/NOTIFY, in ms. Default 1,000. */
  readonly pollIntervalMs?: number;
  /**
   * How often a process without the lease tries to take it (and the holder checks its
   * connection), and how soon a lost connection is made again (LISTEN) or a failed read retried
   * while dispatches wait for it, in ms. Default 1,000.
   */
  readonly leaseRetryMs?: number;
  /** Most events appended by one statement. Default 500. */
  readonly maxBatch?: number;
  /**
   * Sends the append statement as a named prepared statement (parsed and planned once per
   * connection; each append then sends only its values). Default `true`. Give `false` when the
   * pool goes through a pooler that cannot carry named statements across its server
   * connections: PgBouncer in transaction mode before 1.21, or with `max_prepared_statements = 0`
   * (the append would fail with `prepared statement "rxslice_append_…" does not exist`).
   */
  readonly preparedStatements?: boolean;
}

/** Options of {@link SharedSession.dispatch}. */
export interface SharedDispatchOptions {
  /** The envelope's metadata, stored in the log with the event. */
  readonly meta?: EnvelopeMeta;
  /** Append only if the session's last `seq` is this (optimistic concurrency); else {@link SeqConflictError}. */
  readonly expectedSeq?: number;
  /**
   * Appends the event at most once per session and key: a dispatch whose key is already in the
   * log resolves with that logged event (`duplicate: true`) and appends nothing. Use it to retry
   * a dispatch whose outcome is unknown (the connection broke during the commit).
   */
  readonly idempotencyKey?: string;
}

/** What a shared dispatch resolves with: the event as committed in this process, under its log `seq`. */
export interface SharedCommit<TEvent extends Event = Event> extends CommittedEnvelope<TEvent> {
  /** True when an earlier dispatch with the same `idempotencyKey` had appended it (`changed` and `effects` are then empty). */
  readonly duplicate: boolean;
}

/** How a process started: from which snapshot, and how many events it replayed. */
export interface SharedStartup {
  /** The `seq` of the snapshot the state started from (undefined: replayed from the first event). */
  readonly fromSnapshot: number | undefined;
  /** Events read from the log and reduced while starting. */
  readonly replayed: number;
  /** Why the newest snapshot was not used (it failed to read or does not hold every slice), if so. */
  readonly snapshotError: RxSliceError | undefined;
  /** Milliseconds from the first query to the caught-up state. */
  readonly ms: number;
}

/** A session shared by several processes through one PostgreSQL log. See {@link createSharedSession}. */
export interface SharedSession extends SessionReader {
  /** The session's id in the log. */
  readonly sessionId: string;
  /**
   * Validates `event`, appends it to the log, and resolves once this process has reduced it
   * (its state then includes it), with the committed envelope under its log `seq`.
   * Rejects with `InvalidEventError` (nothing appended), {@link SeqConflictError},
   * {@link SharedLogError}, or the `ReducerError` of reducers that threw on it, or the
   * `InvalidTransitionError` of a statechart that refused it (the event is then in the log and
   * changed nothing, in every process alike: each process decides from the same state).
   * @example
   * ```ts
   * const { seq, changed } = await session.dispatch(StepAdded({ step: 'x' }), { idempotencyKey: 'step-x' });
   * ```
   */
  dispatch<TEvent extends Event>(event: TEvent, options?: SharedDispatchOptions): Promise<SharedCommit<TEvent>>;
  /**
   * The live accessor of a slice in this process's state (see `Session.slice`).
   * @throws `SliceNotRegisteredError` when `def` is not one of the session's slices.
   */
  slice<TItem>(def: SliceDef<string, TItem>): SliceHandle<TItem>;
  /** The live handle of a computed slice or accessor of a computed family (see `Session.computed`). */
  computed<THandle>(def: Attachable<THandle>): THandle;
  /**
   * The typed view of a channel: its events as this process reduces them (see `Session.channel`).
   * @throws `InvalidChannelError` when `def` is not a channel definition of this session.
   */
  channel<TEvent extends { readonly type: string }>(def: ChannelDef<string, TEvent>): Channel<TEvent>;
  /** A snapshot of the local state (see `Session.snapshot`); its `seq` is a log position. */
  snapshot(options?: SnapshotOptions): Snapshot;
  /** Reads the log up to its current end and reduces what is new; resolves with {@link SharedSession.lastSeq}. */
  catchUp(): Promise<number>;
  /** Stores a snapshot of the whole state at {@link SharedSession.lastSeq} beside the log now; resolves with that seq. */
  saveSnapshot(): Promise<number>;
  /** The `seq` of the last log event this process reduced. */
  readonly lastSeq: number;
  /** Every envelope as this process reduces it (see `Session.events$`). */
  readonly events$: Observable<Envelope>;
  /** Every commit as this process reduces it, with what changed (see `Session.committed$`). */
  readonly committed$: Observable<CommittedEnvelope>;
  /** Errors reported without throwing (see `Session.errors$`). */
  readonly errors$: Observable<RxSliceError>;
  /** Items evicted by slice windows (see `Session.evicted$`). */
  readonly evicted$: Observable<EvictedItems>;
  /** Whether this process holds the effect lease (replays the current value, then changes). */
  readonly lease$: Observable<boolean>;
  /** Whether this process holds the effect lease now. */
  readonly hasLease: boolean;
  /** How this process started (see {@link SharedStartup}). */
  readonly startup: SharedStartup;
  /**
   * The local session this process reduces the log into. Read it, and attach computed slices,
   * statecharts and effects to it; its `dispatch` forwards to the log and returns at once, with
   * `seq` 0 (the event is numbered when logged). `restore` and `transaction` throw
   * `UnsupportedOnSharedSessionError`.
   */
  readonly local: Session;
  /** Stops reading, releases the lease, rejects dispatches not yet appended, disposes the local session and ends the pool rxslice made. */
  dispose(): Promise<void>;
}
