import type pg from 'pg';

/** A session's effect lease as the shared lease connection sees it. */
export interface LeaseHolder {
  /** The connection failed: the lock is gone (PostgreSQL freed it with the connection). */
  lost(error: unknown): void;
}

const keyOf = (key: readonly [number, number]): string => `${key[0]}:${key[1]}`;

/**
 * @internal The one connection of a pool that holds the effect leases of every shared session
 * made on that pool in this process (docs/SCALING.md, "Connections"): session-level advisory
 * locks are per key, so one connection holds any number of them, and PostgreSQL frees them all
 * when it closes (the process died). A lock is handed to one {@link LeaseHolder} per key only:
 * PostgreSQL's advisory locks are re-entrant on one connection, so two session objects of this
 * process for one session would both "hold" it without this bookkeeping.
 *
 * The connection is taken from the pool at the first `tryLock` and kept while any session uses
 * the pool; when it fails, every holder is told ({@link LeaseHolder.lost}) and the next `tryLock`
 * makes a new one.
 */
export class LeaseConnection {
  private static readonly byPool = new WeakMap<pg.Pool, LeaseConnection>();

  /** The lease connection of `pool` (made on first use); call {@link LeaseConnection.leave} when done. */
  static join(pool: pg.Pool): LeaseConnection {
    let connection = LeaseConnection.byPool.get(pool);
    if (connection === undefined) {
      connection = new LeaseConnection(pool);
      LeaseConnection.byPool.set(pool, connection);
    }
    connection.users++;
    return connection;
  }

  private users = 0;
  private client: pg.PoolClient | undefined;
  private connecting: Promise<pg.PoolClient | undefined> | undefined;
  private checking: Promise<void> | undefined;
  /** The client's statements, one at a time (pg deprecates queueing them on a client). */
  private queue: Promise<unknown> = Promise.resolve();
  private readonly holders = new Map<string, LeaseHolder>();

  private constructor(private readonly pool: pg.Pool) {}

  /** Takes the lock of `key` for `holder` if no one (in any process) holds it. Never throws. */
  async tryLock(key: readonly [number, number], holder: LeaseHolder): Promise<boolean> {
    const id = keyOf(key);
    if (this.holders.has(id)) return false;
    const client = await this.connection();
    if (client === undefined || this.holders.has(id)) return false;
    let ok = false;
    try {
      const { rows } = await this.run<{ ok: boolean }>(client, 'SELECT pg_try_advisory_lock($1::int, $2::int) AS ok', key);
      ok = rows[0]?.ok === true;
    } catch (error) {
      this.drop(client, error);
      return false;
    }
    if (!ok || this.client !== client) return false;
    if (this.holders.has(id)) {
      // Another holder of this process took it meanwhile: the lock was taken twice on this connection.
      await this.run(client, 'SELECT pg_advisory_unlock($1::int, $2::int)', key).catch((error: unknown) => this.drop(client, error));
      return false;
    }
    this.holders.set(id, holder);
    return true;
  }

  /** Checks that the connection still works (one query for all holders); a failure tells every holder. */
  check(): Promise<void> {
    const client = this.client;
    if (client === undefined) return Promise.resolve();
    this.checking ??= this.run(client, 'SELECT 1', [])
      .then(
        () => undefined,
        (error: unknown) => this.drop(client, error),
      )
      .finally(() => (this.checking = undefined));
    return this.checking;
  }

  /** Frees the lock `holder` holds on `key` (nothing if it does not hold it). */
  async unlock(key: readonly [number, number], holder: LeaseHolder): Promise<void> {
    const id = keyOf(key);
    if (this.holders.get(id) !== holder) return;
    this.holders.delete(id);
    const client = this.client;
    if (client === undefined) return;
    try {
      await this.run(client, 'SELECT pg_advisory_unlock($1::int, $2::int)', key);
    } catch (error) {
      this.drop(client, error);
    }
  }

  /** One session is done with the pool's lease connection; the last one closes it (freeing every lock). */
  leave(): void {
    if (--this.users > 0) return;
    LeaseConnection.byPool.delete(this.pool);
    this.holders.clear();
    const client = this.client;
    this.client = undefined;
    client?.release(true);
  }

  private run<TRow extends pg.QueryResultRow>(client: pg.PoolClient, text: string, values: readonly unknown[]): Promise<pg.QueryResult<TRow>> {
    const result = this.queue.then(() => client.query<TRow>(text, [...values]));
    this.queue = result.catch(() => undefined);
    return result;
  }

  private connection(): Promise<pg.PoolClient | undefined> {
    if (this.client !== undefined) return Promise.resolve(this.client);
    this.connecting ??= this.connect().finally(() => (this.connecting = undefined));
    return this.connecting;
  }

  private async connect(): Promise<pg.PoolClient | undefined> {
    let client: pg.PoolClient;
    try {
      client = await this.pool.connect();
    } catch {
      return undefined; // the database is away; the holders try again later
    }
    // From the first moment: a checked-out client whose connection dies emits 'error', and an
    // 'error' nobody listens to would end the process.
    client.on('error', (error) => this.drop(client, error));
    if (this.users === 0) {
      client.release(true);
      return undefined;
    }
    this.client = client;
    return client;
  }

  private drop(client: pg.PoolClient, error: unknown): void {
    if (this.client !== client) return;
    this.client = undefined;
    client.release(true);
    const holders = [...this.holders.values()];
    this.holders.clear();
    for (const holder of holders) holder.lost(error);
  }
}
