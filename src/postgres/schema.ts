import type pg from 'pg';
import { createHash } from 'node:crypto';
import { crc32 } from 'node:zlib';
import { SharedLogError } from './errors';
import { clip } from '../internal/quote';

/** Names of the tables a shared session uses (see {@link sharedTables}). */
export interface SharedTables {
  /** PostgreSQL schema holding the tables (quoted identifier). */
  readonly schema: string;
  /** `<prefix>_events`: the append-only log, one row per event, primary key (session_id, seq). */
  readonly events: string;
  /** `<prefix>_sessions`: one row per session with its last `seq` (the append lock). */
  readonly sessions: string;
  /** `<prefix>_snapshots`: snapshots beside the log, by (session_id, seq). */
  readonly snapshots: string;
  /** `<prefix>_schema_version`: the migrations applied. */
  readonly versions: string;
  /** The LISTEN/NOTIFY channel that wakes readers (payload: the session id): `<schema>_<prefix>_events`, or a hashed name of at most 63 bytes when that is longer (longer names become their first 46 characters, `_` and 16 hex digits of their SHA-256). */
  readonly channel: string;
  /**
   * The LISTEN/NOTIFY channel on which processes tell each other which sessions they have open
   * (payload: `J` or `H` and the session id), so that a process alone on a session sends no wake-ups.
   * `<schema>_<prefix>_peers`, bounded as {@link SharedTables.channel} is.
   */
  readonly peersChannel: string;
  /** Name of the unique index on (session_id, idempotency_key) (unquoted; in `schema`). */
  readonly idempotencyIndex: string;
  /** Key pair of the advisory locks (schema setup; per session lease). */
  readonly lockKey: number;
}

const IDENTIFIER = /^[a-z_][a-z0-9_]{0,39}$/;

/** 32-bit signed key of `text` for advisory locks (CRC32; collisions only share a lock). */
export const lockKeyOf = (text: string): number => crc32(text) | 0;

/** PostgreSQL's longest identifier, in bytes (NAMEDATALEN - 1); a LISTEN/NOTIFY channel name is one. */
export const MAX_IDENTIFIER_BYTES = 63;

/**
 * A LISTEN/NOTIFY channel name of at most {@link MAX_IDENTIFIER_BYTES} bytes for `name`: `name`
 * itself when it fits (the names rxslice has always used), else its first 46 characters, `_` and
 * 16 hex digits of its SHA-256. PostgreSQL would cut a longer name in LISTEN (so two table
 * prefixes sharing the first 63 bytes would share a channel) and refuse it in `pg_notify`
 * ("channel name too long": no wake-up would ever be sent). Names here are ASCII (see
 * {@link sharedTables}), so characters are bytes.
 * @example
 * ```ts
 * channelName('public_rxslice_events'); // 'public_rxslice_events'
 * channelName(`${'s'.repeat(40)}_${'p'.repeat(40)}_events`).length; // 63
 * ```
 */
export function channelName(name: string): string {
  if (name.length <= MAX_IDENTIFIER_BYTES) return name;
  const hash = createHash('sha256').update(name).digest('hex').slice(0, 16);
  return `${name.slice(0, MAX_IDENTIFIER_BYTES - hash.length - 1)}_${hash}`;
}

/**
 * The tables of `tablePrefix` in `schema`.
 * @throws {@link SharedLogError} for a prefix or schema that is not a plain lower-case identifier
 * (letters, digits, `_`; at most 40 characters), so that names never need escaping.
 * @example
 * ```ts
 * sharedTables('agents').events; // '"public"."agents_events"'
 * ```
 */
export function sharedTables(tablePrefix = 'rxslice', schema = 'public'): SharedTables {
  for (const [what, value] of [
    ['tablePrefix', tablePrefix],
    ['schema', schema],
  ] as const) {
    if (typeof value !== 'string' || !IDENTIFIER.test(value)) {
      throw new SharedLogError(`${what} must be a lower-case identifier such as "rxslice" (letters, digits and _, at most 40 characters); got ${clip(JSON.stringify(value))}`);
    }
  }
  const q = (name: string): string => `"${schema}"."${tablePrefix}_${name}"`;
  return {
    schema: `"${schema}"`,
    events: q('events'),
    sessions: q('sessions'),
    snapshots: q('snapshots'),
    versions: q('schema_version'),
    channel: channelName(`${schema}_${tablePrefix}_events`),
    peersChannel: channelName(`${schema}_${tablePrefix}_peers`),
    idempotencyIndex: `${tablePrefix}_events_idempotency`,
    lockKey: lockKeyOf(`rxslice:${schema}.${tablePrefix}`),
  };
}

/**
 * Versioned migrations of the shared-session tables, applied in order by {@link ensureSchema}.
 * Append new versions; never edit an applied one.
 */
const MIGRATIONS: readonly ((t: SharedTables) => string)[] = [
  // 1: log, sessions, snapshots.
  (t) => `
    CREATE TABLE IF NOT EXISTS ${t.sessions} (
      session_id text PRIMARY KEY,
      last_seq bigint NOT NULL DEFAULT 0,
      created_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE TABLE IF NOT EXISTS ${t.events} (
      session_id text NOT NULL,
      seq bigint NOT NULL,
      at double precision NOT NULL,
      type text NOT NULL,
      payload json,
      meta json NOT NULL,
      idempotency_key text,
      appended_at timestamptz NOT NULL DEFAULT clock_timestamp(),
      PRIMARY KEY (session_id, seq)
    );
    CREATE UNIQUE INDEX IF NOT EXISTS "${t.idempotencyIndex}"
      ON ${t.events} (session_id, idempotency_key) WHERE idempotency_key IS NOT NULL;
    CREATE TABLE IF NOT EXISTS ${t.snapshots} (
      session_id text NOT NULL,
      seq bigint NOT NULL,
      taken_at timestamptz NOT NULL DEFAULT now(),
      data text NOT NULL,
      PRIMARY KEY (session_id, seq)
    );`,
];

/** The schema version this build of rxslice writes. */
export const SCHEMA_VERSION = MIGRATIONS.length;

/**
 * Creates or migrates the tables, idempotently and safely when several processes start at once:
 * one transaction under a transaction-level advisory lock reads the applied version and applies
 * the missing migrations. @throws {@link SharedLogError} when the database holds a newer version
 * than this build knows (an older rxslice must not write to a newer layout).
 */
export async function ensureSchema(pool: pg.Pool, tables: SharedTables): Promise<void> {
  let client: pg.PoolClient;
  try {
    client = await pool.connect();
  } catch (error) {
    throw new SharedLogError('connecting to PostgreSQL failed', error);
  }
  // A connection that dies while checked out emits 'error' (unhandled, it would end the process);
  // the query in flight rejects with it too, and that is what is reported.
  const ignore = (): void => undefined;
  client.on('error', ignore);
  try {
    await client.query('BEGIN');
    await client.query('SELECT pg_advisory_xact_lock($1::int, 0)', [tables.lockKey]);
    await client.query(`CREATE TABLE IF NOT EXISTS ${tables.versions} (version int PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`);
    const { rows } = await client.query<{ v: number | null }>(`SELECT max(version) AS v FROM ${tables.versions}`);
    const applied = rows[0]?.v ?? 0;
    if (applied > SCHEMA_VERSION) {
      throw new SharedLogError(`the tables ${tables.events} are at schema version ${applied}, newer than this rxslice knows (${SCHEMA_VERSION}); upgrade rxslice`);
    }
    for (let v = applied + 1; v <= SCHEMA_VERSION; v++) {
      await client.query((MIGRATIONS[v - 1] as (t: SharedTables) => string)(tables));
      await client.query(`INSERT INTO ${tables.versions} (version) VALUES ($1)`, [v]);
    }
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error instanceof SharedLogError ? error : new SharedLogError('setting up the tables failed', error);
  } finally {
    client.off('error', ignore);
    client.release();
  }
}
