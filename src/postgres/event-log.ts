import type pg from 'pg';
import type { EnvelopeMeta } from '../events/envelope';
import { SeqConflictError, SharedLogError } from './errors';
import type { SharedTables } from './schema';
import { quote } from '../internal/quote';

/** One event as the log holds it. */
export interface LoggedEvent {
  readonly seq: number;
  /** `scheduler.now()` of the process that accepted it, in ms. */
  readonly at: number;
  readonly type: string;
  readonly payload: unknown;
  readonly meta: EnvelopeMeta;
}

/** An event to append: already validated, its payload and meta as JSON text. */
export interface PendingAppend {
  readonly at: number;
  readonly type: string;
  readonly payload: string;
  readonly meta: string;
  readonly idempotencyKey: string | null;
}

/** What an append gave each event: its logged form, and whether an earlier append had it already (same idempotency key). */
export interface AppendResult {
  readonly event: LoggedEvent;
  readonly duplicate: boolean;
}

const UNIQUE_VIOLATION = '23505';

interface EventRow {
  seq: string;
  at: number;
  type: string;
  payload: unknown;
  meta: EnvelopeMeta | null;
  idempotency_key?: string | null;
}

const toLogged = (row: EventRow): LoggedEvent => ({ seq: Number(row.seq), at: row.at, type: row.type, payload: row.payload, meta: row.meta ?? {} });

/**
 * The PostgreSQL log of one session: append (one statement per batch), read by position,
 * snapshots beside it.
 *
 * @remarks Sequence numbers come from the session's row in `<prefix>_sessions`: the append
 * statement updates that row (`last_seq = last_seq + n`), which holds its row lock until the
 * statement's transaction commits, and inserts the events numbered from the old value. Appends to
 * one session therefore commit in `seq` order, and a reader that sees `seq` n sees every event
 * below it: the log has no transient gaps, so reading by position never passes an open lower
 * transaction (the failure that the transaction-id / `pg_snapshot_xmin` rule of Emmett and Marten
 * guards against for a global sequence shared by concurrent appenders; here each session's
 * positions are handed out under its row lock instead). Readers still apply only a contiguous
 * prefix, so a hole made by hand stops them rather than being skipped.
 */
export class PostgresEventLog {
  constructor(
    private readonly pool: pg.Pool,
    private readonly tables: SharedTables,
    readonly sessionId: string,
  ) {}

  /** Creates the session's row if it is new. */
  async open(): Promise<void> {
    await this.query(`INSERT INTO ${this.tables.sessions} (session_id) VALUES ($1) ON CONFLICT (session_id) DO NOTHING`, [this.sessionId], 'opening the session');
  }

  /** The last `seq` of the session in the log (0 when empty). */
  async head(): Promise<number> {
    const { rows } = await this.query<{ last_seq: string }>(`SELECT last_seq FROM ${this.tables.sessions} WHERE session_id = $1`, [this.sessionId], 'reading the head');
    return rows.length === 0 ? 0 : Number(rows[0]?.last_seq);
  }

  /**
   * Appends `batch` in one statement (one transaction): numbered after the session's last `seq`,
   * in order. Events whose idempotency key is already in the log are not appended again: their
   * result is the logged event (`duplicate: true`). `expectedSeq` (batches of one only) makes the
   * append conditional on the session's last `seq`.
   * @throws {@link SeqConflictError} when `expectedSeq` is not the session's last `seq`;
   * {@link SharedLogError} when PostgreSQL fails.
   */
  async append(batch: readonly PendingAppend[], expectedSeq?: number): Promise<AppendResult[]> {
    for (let attempt = 0; ; attempt++) {
      const keys = batch.map((e) => e.idempotencyKey).filter((k): k is string => k !== null);
      const existing = keys.length === 0 ? new Map<string, LoggedEvent>() : await this.byKeys(keys);
      const fresh = batch.filter((e) => e.idempotencyKey === null || !existing.has(e.idempotencyKey));
      let appended: LoggedEvent[] = [];
      if (fresh.length > 0) {
        try {
          appended = await this.insert(fresh, expectedSeq);
        } catch (error) {
          // Another process appended one of the keys since byKeys: look them up again.
          if ((error as { cause?: { code?: string } }).cause?.code === UNIQUE_VIOLATION && attempt < 5) continue;
          throw error;
        }
      }
      let next = 0;
      return batch.map((e) => {
        const known = e.idempotencyKey === null ? undefined : existing.get(e.idempotencyKey);
        if (known !== undefined) return { event: known, duplicate: true };
        return { event: appended[next++] as LoggedEvent, duplicate: false };
      });
    }
  }

  private async insert(batch: readonly PendingAppend[], expectedSeq: number | undefined): Promise<LoggedEvent[]> {
    const t = this.tables;
    const n = batch.length;
    const { rows } = await this.query<{ base: string }>(
      `WITH s AS (
         UPDATE ${t.sessions} SET last_seq = last_seq + $2::int
         WHERE session_id = $1 AND ($3::bigint IS NULL OR last_seq = $3::bigint)
         RETURNING last_seq - $2::int AS base
       ), ins AS (
         INSERT INTO ${t.events} (session_id, seq, at, type, payload, meta, idempotency_key)
         SELECT $1, s.base + e.ord, e.at, e.type, e.payload, e.meta, e.key
         FROM s, unnest($4::float8[], $5::text[], $6::json[], $7::json[], $8::text[]) WITH ORDINALITY AS e(at, type, payload, meta, key, ord)
         RETURNING 1
       )
       SELECT s.base, (SELECT count(*) FROM ins) AS n FROM s`,
      [
        this.sessionId,
        n,
        expectedSeq ?? null,
        batch.map((e) => e.at),
        batch.map((e) => e.type),
        batch.map((e) => e.payload),
        batch.map((e) => e.meta),
        batch.map((e) => e.idempotencyKey),
      ],
      'appending',
    );
    if (rows.length === 0) {
      const actual = await this.head();
      if (expectedSeq !== undefined) throw new SeqConflictError(this.sessionId, expectedSeq, actual);
      throw new SharedLogError(`session ${quote(this.sessionId)} has no row in ${t.sessions} (deleted while open?)`);
    }
    const base = Number(rows[0]?.base);
    return batch.map((e, i) => ({ seq: base + i + 1, at: e.at, type: e.type, payload: JSON.parse(e.payload) as unknown, meta: JSON.parse(e.meta) as EnvelopeMeta }));
  }

  private async byKeys(keys: readonly string[]): Promise<Map<string, LoggedEvent>> {
    const { rows } = await this.query<EventRow>(
      `SELECT seq, at, type, payload, meta, idempotency_key FROM ${this.tables.events} WHERE session_id = $1 AND idempotency_key = ANY($2::text[])`,
      [this.sessionId, keys],
      'reading idempotency keys',
    );
    return new Map(rows.map((r) => [r.idempotency_key as string, toLogged(r)]));
  }

  /** Up to `limit` events after `afterSeq`, in `seq` order. */
  async read(afterSeq: number, limit: number): Promise<LoggedEvent[]> {
    const { rows } = await this.query<EventRow>(
      `SELECT seq, at, type, payload, meta FROM ${this.tables.events} WHERE session_id = $1 AND seq > $2 ORDER BY seq LIMIT $3`,
      [this.sessionId, afterSeq, limit],
      'reading the log',
    );
    return rows.map(toLogged);
  }

  /**
   * Streams every event after `afterSeq` in `seq` order, in batches of `batchSize`, to
   * `onBatch` (the cold open's read: no per-batch query of its own). One cursor in one read-only
   * transaction on one client: its plan is made once, for a fast start (an index scan), so a
   * long log is read in one pass, never rescanned per batch whatever the table's statistics say;
   * the next batch is fetched while `onBatch` reduces the current one. Rows come as arrays, the
   * JSON of payload and meta as text, decoded once here. `onBatch` returns false to stop early.
   * Resolves with the number of events handed over. @throws {@link SharedLogError}
   */
  async stream(afterSeq: number, batchSize: number, onBatch: (events: LoggedEvent[]) => boolean): Promise<number> {
    let client: pg.PoolClient;
    try {
      client = await this.pool.connect();
    } catch (error) {
      throw new SharedLogError(`reading the log failed for session ${quote(this.sessionId)}`, error);
    }
    const ignore = (): void => undefined;
    client.on('error', ignore);
    let broken = false;
    let count = 0;
    const fetch = (): Promise<pg.QueryArrayResult<[string, number, string, string | null, string | null]>> =>
      client.query({ text: `FETCH FORWARD ${batchSize} FROM rxslice_replay`, rowMode: 'array' });
    try {
      await client.query('BEGIN READ ONLY');
      await client.query(
        `DECLARE rxslice_replay NO SCROLL CURSOR FOR SELECT seq, at, type, payload::text, meta::text FROM ${this.tables.events} WHERE session_id = $1 AND seq > $2 ORDER BY seq`,
        [this.sessionId, afterSeq],
      );
      let next = fetch();
      for (;;) {
        const { rows } = await next;
        // Fetch on while this batch is reduced (pg queues the query on the client).
        const more = rows.length === batchSize;
        if (more) next = fetch();
        const events = new Array<LoggedEvent>(rows.length);
        for (let i = 0; i < rows.length; i++) {
          const [seq, at, type, payload, meta] = rows[i] as [string, number, string, string | null, string | null];
          events[i] = { seq: Number(seq), at, type, payload: payload === null ? null : JSON.parse(payload), meta: meta === null ? {} : (JSON.parse(meta) as EnvelopeMeta) };
        }
        count += events.length;
        const goOn = events.length > 0 && onBatch(events);
        if (!more) break;
        if (!goOn) {
          await next.catch(() => undefined);
          break;
        }
      }
      await client.query('COMMIT');
      return count;
    } catch (error) {
      broken = true;
      throw error instanceof SharedLogError ? error : new SharedLogError(`reading the log failed for session ${quote(this.sessionId)}`, error);
    } finally {
      client.off('error', ignore);
      client.release(broken);
    }
  }

  /** The newest snapshot of the session at or below `maxSeq` (JSON text), if any. */
  async latestSnapshot(maxSeq = Number.MAX_SAFE_INTEGER): Promise<{ seq: number; data: string } | undefined> {
    const { rows } = await this.query<{ seq: string; data: string }>(
      `SELECT seq, data FROM ${this.tables.snapshots} WHERE session_id = $1 AND seq <= $2 ORDER BY seq DESC LIMIT 1`,
      [this.sessionId, maxSeq],
      'reading a snapshot',
    );
    const row = rows[0];
    return row === undefined ? undefined : { seq: Number(row.seq), data: row.data };
  }

  /** Stores a snapshot taken at `seq` (kept if one exists) and deletes all but the newest `keep`. */
  async saveSnapshot(seq: number, data: string, keep: number): Promise<void> {
    const t = this.tables;
    await this.query(`INSERT INTO ${t.snapshots} (session_id, seq, data) VALUES ($1, $2, $3) ON CONFLICT (session_id, seq) DO NOTHING`, [this.sessionId, seq, data], 'writing a snapshot');
    await this.query(
      `DELETE FROM ${t.snapshots} WHERE session_id = $1 AND seq < (SELECT min(seq) FROM (SELECT seq FROM ${t.snapshots} WHERE session_id = $1 ORDER BY seq DESC LIMIT $2) newest)`,
      [this.sessionId, keep],
      'pruning snapshots',
    );
  }

  private async query<TRow extends pg.QueryResultRow>(text: string, values: unknown[], what: string): Promise<pg.QueryResult<TRow>> {
    try {
      return await this.pool.query<TRow>(text, values);
    } catch (error) {
      throw new SharedLogError(`${what} failed for session ${quote(this.sessionId)}`, error);
    }
  }
}
