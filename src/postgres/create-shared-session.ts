import pg from 'pg';
import { RxSliceError } from '../internal/errors';
import { SharedLogError } from './errors';
import { PostgresEventLog } from './event-log';
import { ensureSchema, lockKeyOf, sharedTables } from './schema';
import { SharedSessionImpl } from './shared-session';
import type { SharedSession, SharedSessionOptions } from './shared-session-types';
import { clip } from '../internal/quote';

/** Clients shared sessions need from their pool: LISTEN and the effect leases (each one per pool, whatever the sessions), and one to append and read. */
const MIN_POOL_CLIENTS = 3;

/**
 * Opens (or joins) a session shared by several processes through an event log in PostgreSQL
 * (event sourcing). Resolves once the tables exist and this process has caught up with the log.
 *
 * @remarks docs/ARCHITECTURE.md, "Shared sessions".
 * - **Source of truth**: the `<prefix>_events` table. `dispatch` validates, appends (one
 *   statement per batch of pending dispatches: group commit), and resolves once this process
 *   has reduced the event; every process, the writer included, reduces every event in `seq`
 *   order, so all converge on the same state (reducers are pure; `at` is logged).
 * - **No skipped events**: `seq` is handed out under the session row's lock, so appends commit in
 *   `seq` order; reading by position (`seq > last`) applies only a contiguous prefix (a hole is
 *   waited at and reported as {@link SharedLogGapError}, never skipped). LISTEN/NOTIFY wakes
 *   readers; polling every `pollIntervalMs` and a catch-up after every reconnect back it up.
 * - **Snapshots beside the log**: the lease holder stores one every `snapshotEvery` events; a new
 *   process restores the newest and replays only the events after it.
 * - **Effects once per session**: one process holds a PostgreSQL advisory lock (the lease, on a
 *   connection of its own); there `onLease` runs and sagas run and resume from their progress in
 *   the log. When that process dies its connection closes, the lock is freed, and another process
 *   takes over within `leaseRetryMs`.
 * - **Connections**: sessions made on one `pool` in a process share its LISTEN connection (one per
 *   table prefix) and its lease connection (it holds the lease of each of them), so a process's
 *   connections stay at the pool's `max` however many sessions it opens (docs/SCALING.md).
 * - Schema setup is idempotent and safe when processes start at once (versioned migrations under
 *   an advisory lock).
 *
 * @throws (rejects) {@link SharedLogError} when PostgreSQL cannot be reached or the tables are
 * newer than this rxslice, and at once for a pool of fewer than 3 clients (two stay checked out:
 * LISTEN and the effect lease); errors of `createSession` for bad slices.
 * @example
 * ```ts
 * const session = await createSharedSession({ slices: [Plan], sessionId: 'agent-42', postgres: { connectionString } });
 * session.slice(Plan).all$.subscribe((steps) => console.log(steps.length)); // every process sees every step
 * const committed = await session.dispatch(StepAdded({ step: 'x' }));       // committed.seq: its place in the log
 * await session.dispatch(StepAdded({ step: 'y' }), { expectedSeq: committed.seq }); // SeqConflictError if another process appended first
 * ```
 */
export async function createSharedSession(options: SharedSessionOptions): Promise<SharedSession> {
  if (typeof options.sessionId !== 'string' || options.sessionId.length === 0 || options.sessionId.length > 200) {
    throw new SharedLogError(`sessionId must be a non-empty string of at most 200 characters; got ${clip(JSON.stringify(options.sessionId))}`);
  }
  const middleware = options.middleware as { operators?: unknown; events?: unknown } | undefined;
  if (middleware?.operators !== undefined || middleware?.events !== undefined) {
    throw new SharedLogError(
      `${middleware.operators !== undefined ? 'operator' : 'event'} middleware is not available on a shared session (it could delay or drop events differently in each process); use reducer middleware`,
    );
  }
  if (options.preparedStatements !== undefined && typeof options.preparedStatements !== 'boolean') {
    throw new SharedLogError(`preparedStatements must be true or false; got ${clip(JSON.stringify(options.preparedStatements))}`);
  }
  const tables = sharedTables(options.tablePrefix, options.schema);
  const conn = options.postgres;
  // The LISTEN client and the effect lease's client stay checked out: with fewer than 3 clients,
  // the lease holder's appends and reads would wait for a client forever.
  const max = 'pool' in conn ? (conn.pool as { options?: { max?: unknown } }).options?.max : conn.max;
  if (max !== undefined && !(typeof max === 'number' && Number.isInteger(max) && max >= MIN_POOL_CLIENTS)) {
    throw new SharedLogError(
      `a pool of at most ${String(max)} clients cannot run a shared session: it keeps ${MIN_POOL_CLIENTS - 1} checked out (LISTEN and the effect lease) and needs one more to append and read; give postgres.max (or the pool's max) ${MIN_POOL_CLIENTS} or more`,
    );
  }
  const ownPool = !('pool' in conn);
  const pool = 'pool' in conn ? conn.pool : new pg.Pool({ connectionString: conn.connectionString, max: conn.max ?? 6, keepAlive: true });
  // An idle client's error (the server restarted) must not crash the process: the pool drops it.
  const releasePool = guardPool(pool);
  try {
    const started = Date.now();
    await ensureSchema(pool, tables);
    const log = new PostgresEventLog(pool, tables, options.sessionId, options.preparedStatements ?? true);
    await log.open();
    const shared = new SharedSessionImpl(options, pool, ownPool, releasePool, log, { wake: tables.channel, peers: tables.peersChannel }, [tables.lockKey, lockKeyOf(options.sessionId)]);
    try {
      await shared.start(started);
    } catch (error) {
      await shared.dispose();
      throw error;
    }
    return shared;
  } catch (error) {
    if (ownPool) await pool.end().catch(() => undefined);
    else releasePool();
    // (Driver errors carry a string `code` too: only rxslice's own errors pass as they are.)
    throw error instanceof RxSliceError ? error : new SharedLogError('opening the session failed', error);
  }
}

/** The sessions open on each pool, sharing one no-op `error` listener on it. */
const guardedPools = new WeakMap<pg.Pool, { readonly listener: () => void; sessions: number }>();

/**
 * Keeps an idle client's error (the server restarted) from crashing the process while a session
 * is open on `pool`: one listener per pool, however many sessions share it (one per session passed
 * node's 10-listener warning at 11 sessions on a pool). Answers the release, idempotent; the last
 * session's release removes the listener.
 */
function guardPool(pool: pg.Pool): () => void {
  let guard = guardedPools.get(pool);
  if (guard === undefined) {
    guard = { listener: () => undefined, sessions: 0 };
    guardedPools.set(pool, guard);
    pool.on('error', guard.listener);
  }
  guard.sessions++;
  let released = false;
  const held = guard;
  return () => {
    if (released) return;
    released = true;
    if (--held.sessions > 0) return;
    pool.off('error', held.listener);
    guardedPools.delete(pool);
  };
}
