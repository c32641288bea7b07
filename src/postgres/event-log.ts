import type pg from 'pg';
import { crc32 } from 'node:zlib';
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
}

interface Statement {
  readonly name: string;
  readonly text: string;
}

/**
 * The append statements of `tables` (batches without idempotency keys), sent as named prepared
 * statements: each connection parses and plans them once, then an append sends only its values
 * (issue 35: less work per append for the writer process and the server). `one` appends one
 * event from plain parameters (an awaited dispatch: no arrays to encode and unnest); `many` a
 * batch from arrays. A name is derived from its text, so two table prefixes (or two rxslice
 * versions) never share one.
 */
const appendStatements = (t: SharedTables): { readonly one: Statement; readonly many: Statement } => {
  const named = (text: string): Statement => ({ name: `rxslice_append_${(crc32(text) >>> 0).toString(36)}`, text });
  // The session row: its last seq moves on by n (under its row lock, to the commit), if it is `expected`.
  const session = (n: string, expected: string): string => `UPDATE ${t.sessions} SET last_seq = last_seq + ${n}
         WHERE session_id = $1 AND (${expected}::bigint IS NULL OR last_seq = ${expected}::bigint)
         RETURNING last_seq - ${n} AS base`;
  const columns = `${t.events} (session_id, seq, at, type, payload, meta, idempotency_key)`;
  return {
    one: named(`WITH s AS (${session('1', '$2')}), ins AS (
         INSERT INTO ${columns} SELECT $1, s.base + 1, $3::float8, $4::text, $5::json, $6::json, $7::text FROM s
         RETURNING 1
       )
       SELECT s.base, (SELECT count(*) FROM ins) AS n FROM s`),
    many: named(`WITH s AS (${session('$2::int', '$3')}), ins AS (
         INSERT INTO ${columns}
         SELECT $1, s.base + e.ord, e.at, e.type, e.payload, e.meta, e.key
         FROM s, unnest($4::float8[], $5::text[], $6::json[], $7::json[], $8::text[]) WITH ORDINALITY AS e(at, type, payload, meta, key, ord)
         RETURNING 1
       )
       SELECT s.base, (SELECT count(*) FROM ins) AS n FROM s`),
  };
};

const toLogged = (row: EventRow): LoggedEvent => ({ seq: Number(row.seq), at: row.at, type: row.type, payload: row.payload, meta: row.meta ?? {} });

/**
 * The PostgreSQL log of one session: append (one statement, one round trip per batch, with or
 * without idempotency keys), read by position,
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
  private statements: ReturnType<typeof appendStatements> | undefined;

  constructor(
    private readonly pool: pg.Pool,
    private readonly tables: SharedTables,
    readonly sessionId: string,
    /** Whether the append goes as a named prepared statement (`SharedSessionOptions.preparedStatements`). */
    private readonly prepared = true,
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
    if (batch.every((e) => e.idempotencyKey === null)) return (await this.insert(batch, expectedSeq)).map((event) => ({ event, duplicate: false }));
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.insertKeyed(batch, expectedSeq);
      } catch (error) {
        // Another process appended one of the keys after this statement's snapshot: again (it sees them now).
        if ((error as { cause?: { code?: string } }).cause?.code === UNIQUE_VIOLATION && attempt < 5) continue;
        throw error;
      }
    }
  }

  /**
   * A batch with idempotency keys in one statement: the events whose key is in the log are
   * returned as they are logged, the others appended as {@link PostgresEventLog.insert} does.
   * (A key committed by another process after the statement's snapshot fails the insert with a
   * unique violation: the caller runs it again.)
   */
  private async insertKeyed(batch: readonly PendingAppend[], expectedSeq: number | undefined): Promise<AppendResult[]> {
    const t = this.tables;
    const { rows } = await this.query<{ fresh: string; base: string | null; old: { ord: number; seq: number; at: number; type: string; payload: unknown; meta: EnvelopeMeta | null }[] | null }>(
      `WITH e AS (
         SELECT * FROM unnest($3::float8[], $4::text[], $5::json[], $6::json[], $7::text[]) WITH ORDINALITY AS e(at, type, payload, meta, key, ord)
       ), old AS (
         -- (= ANY: an index lookup per key, whatever the statistics say; a join on the key alone may scan the session's keys)
         SELECT e.ord, l.seq, l.at, l.type, l.payload, l.meta FROM ${t.events} l JOIN e ON l.idempotency_key = e.key
         WHERE l.session_id = $1 AND l.idempotency_key = ANY($7::text[])
       ), fresh AS (
         SELECT e.*, row_number() OVER (ORDER BY e.ord) AS n FROM e WHERE e.ord NOT IN (SELECT ord FROM old)
       ), s AS (
         UPDATE ${t.sessions} SET last_seq = last_seq + (SELECT count(*) FROM fresh)
         WHERE session_id = $1 AND EXISTS (SELECT 1 FROM fresh) AND ($2::bigint IS NULL OR last_seq = $2::bigint)
         RETURNING last_seq - (SELECT count(*) FROM fresh) AS base
       ), ins AS (
         INSERT INTO ${t.events} (session_id, seq, at, type, payload, meta, idempotency_key)
         SELECT $1, s.base + f.n, f.at, f.type, f.payload, f.meta, f.key FROM s, fresh f
         RETURNING 1
       )
       SELECT (SELECT count(*) FROM fresh) AS fresh, (SELECT base FROM s) AS base, (SELECT count(*) FROM ins) AS inserted,
              (SELECT json_agg(json_build_object('ord', ord, 'seq', seq, 'at', at, 'type', type, 'payload', payload, 'meta', meta)) FROM old) AS old`,
      [this.sessionId, expectedSeq ?? null, batch.map((e) => e.at), batch.map((e) => e.type), batch.map((e) => e.payload), batch.map((e) => e.meta), batch.map((e) => e.idempotencyKey)],
      'appending',
    );
    const row = rows[0];
    const fresh = Number(row?.fresh ?? 0);
    if (fresh > 0 && (row?.base === null || row?.base === undefined)) await this.refused(expectedSeq);
    const old = new Map((row?.old ?? []).map((o) => [o.ord, { seq: Number(o.seq), at: o.at, type: o.type, payload: o.payload, meta: o.meta ?? {} }]));
    const base = Number(row?.base ?? 0);
    let n = 0;
    return batch.map((e, i) => {
      const known = old.get(i + 1);
      if (known !== undefined) return { event: known, duplicate: true };
      n++;
      return { event: { seq: base + n, at: e.at, type: e.type, payload: JSON.parse(e.payload) as unknown, meta: JSON.parse(e.meta) as EnvelopeMeta }, duplicate: false };
    });
  }

  /** The append statement changed no session row: `expectedSeq` did not hold, or the row is gone. */
  private async refused(expectedSeq: number | undefined): Promise<never> {
    const actual = await this.head();
    if (expectedSeq !== undefined) throw new SeqConflictError(this.sessionId, expectedSeq, actual);
    throw new SharedLogError(`session ${quote(this.sessionId)} has no row in ${this.tables.sessions} (deleted while open?)`);
  }

  private async insert(batch: readonly PendingAppend[], expectedSeq: number | undefined): Promise<LoggedEvent[]> {
    const statements = (this.statements ??= appendStatements(this.tables));
    const one = batch.length === 1 ? (batch[0] as PendingAppend) : undefined;
    const statement = one === undefined ? statements.many : statements.one;
    const { rows } = await this.query<{ base: string }>(
      this.prepared ? statement : statement.text,
      one === undefined
        ? [
            this.sessionId,
            batch.length,
            expectedSeq ?? null,
            batch.map((e) => e.at),
            batch.map((e) => e.type),
            batch.map((e) => e.payload),
            batch.map((e) => e.meta),
            batch.map((e) => e.idempotencyKey),
          ]
        : [this.sessionId, expectedSeq ?? null, one.at, one.type, one.payload, one.meta, one.idempotencyKey],
      'appending',
    );
    if (rows.length === 0) await this.refused(expectedSeq);
    const base = Number(rows[0]?.base);
    return batch.map((e, i) => ({ seq: base + i + 1, at: e.at, type: e.type, payload: JSON.parse(e.payload) as unknown, meta: JSON.parse(e.meta) as EnvelopeMeta }));
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

  private async query<TRow extends pg.QueryResultRow>(text: string | { readonly name: string; readonly text: string }, values: unknown[], what: string): Promise<pg.QueryResult<TRow>> {
    try {
      return await (typeof text === 'string' ? this.pool.query<TRow>(text, values) : this.pool.query<TRow>({ name: text.name, text: text.text, values }));
    } catch (error) {
      throw new SharedLogError(`${what} failed for session ${quote(this.sessionId)}`, error);
    }
  }
}
