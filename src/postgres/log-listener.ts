import type pg from 'pg';
import { Subscription, timer } from 'rxjs';
import { SharedLogError } from './errors';

/** What a {@link LogListener} tells its shared session. */
export interface LogListenerHooks {
  /** Reads the log on from the session's position (failures are the session's to report). */
  catchUp(): void;
  report(error: unknown): void;
}

/**
 * Sends one wake-up: a transaction of its own, with `synchronous_commit` off for it alone (it
 * writes nothing worth a WAL flush, so the notify lock is held for microseconds).
 */
const WAKE_UP = "SELECT set_config('synchronous_commit', 'off', true), pg_notify($1, $2)";

/**
 * Labels the LISTEN connection in `pg_stat_activity.application_name`: the pool's own name (from
 * the connection string or pool config) with ` (rxslice listen)` after it, at most 63 characters
 * (PostgreSQL's limit: the start of a longer name is cut, so the suffix stays). So an operator, or a test, finds the LISTEN
 * connection of a process by name, whatever it last ran (its wake-ups); the pool's other
 * connections keep their name. The connection is never returned to the pool (released with `true`).
 */
const LABEL = "SELECT set_config('application_name', right(ltrim(current_setting('application_name') || ' (rxslice listen)'), 63), false)";

/**
 * @internal The LISTEN connection of a shared session (docs/ARCHITECTURE.md, "Shared sessions"):
 * a notification naming the session wakes a catch-up. A connection that cannot be made or is lost
 * is reported and released, and tried again `retryMs` later (polling reads on meanwhile); every
 * connection made is followed by a catch-up, for the events committed while no one listened.
 *
 * @remarks It also sends this process's wake-ups ({@link LogListener.wake}), after an append
 * committed. A NOTIFY inside the write transaction makes its commit take PostgreSQL's
 * database-wide notify lock (`object pg_database objid 0`, AccessExclusiveLock) and hold it
 * through the commit's WAL flush, so every session of the database would commit one at a time.
 * The wake-up is a transaction of its own instead, without a WAL flush, coalesced: while one is
 * on its way, any number of commits ask for one more, sent when it returns. Sent on the LISTEN
 * connection, it comes back to this process with that connection's backend id, and is ignored
 * here (this process applied its own appends already); with no LISTEN connection it goes
 * through the pool.
 *
 * A wake-up is only a hint: readers read by position, apply a contiguous prefix, and poll
 * behind it. One lost (a connection broke, the process died between commit and wake-up) or late
 * delays a reader by at most its polling interval; one early finds nothing new. Neither can lose
 * or reorder an event.
 */
export class LogListener {
  private client: pg.PoolClient | undefined;
  private closed = false;
  private waking = false;
  private wakeAgain = false;
  /** Pending reconnection timers. */
  private readonly retries = new Subscription();

  constructor(
    private readonly pool: pg.Pool,
    private readonly channel: string,
    private readonly sessionId: string,
    private readonly retryMs: number,
    private readonly hooks: LogListenerHooks,
  ) {}

  /** Connects and LISTENs; resolves once done or once a failure was reported and a retry planned. */
  async connect(): Promise<void> {
    if (this.closed) return;
    let client: pg.PoolClient;
    try {
      client = await this.pool.connect();
    } catch (error) {
      this.hooks.report(new SharedLogError('connecting the LISTEN client failed (polling goes on; retrying)', error));
      this.retry();
      return;
    }
    if (this.closed) {
      client.release(true);
      return;
    }
    client.on('error', (error) => this.lost(client, error));
    // The backend id PostgreSQL gave the connection (pg keeps it from BackendKeyData).
    const pid = (client as unknown as { processID?: number }).processID ?? -1;
    client.on('notification', (message) => {
      if (message.payload === this.sessionId && message.processId !== pid) this.hooks.catchUp();
    });
    this.client = client;
    try {
      // One round trip (the simple protocol runs both statements).
      await client.query(`${LABEL}; LISTEN "${this.channel}"`);
    } catch (error) {
      this.lost(client, error);
      return;
    }
    // Events committed while no one listened: read them by position.
    this.hooks.catchUp();
  }

  /**
   * Wakes the readers of the session in every process (call it after an append committed): sent
   * now, or once the wake-up on its way returns (coalesced). Never throws; a failure is reported.
   */
  wake(): void {
    if (this.closed) return;
    if (this.waking) {
      this.wakeAgain = true;
      return;
    }
    this.waking = true;
    void this.sendWakeUps();
  }

  private async sendWakeUps(): Promise<void> {
    try {
      do {
        this.wakeAgain = false;
        const client = this.client;
        try {
          await (client ?? this.pool).query(WAKE_UP, [this.channel, this.sessionId]);
        } catch (error) {
          // A wake-up that fails on the LISTEN connection finds it broken (killed mid-statement, the
          // client may never say so otherwise): it is lost, reported once, and made again.
          if (client !== undefined) this.lost(client, error);
          else if (!this.closed) this.hooks.report(new SharedLogError('waking the other processes failed (the append is committed; their polling finds it)', error));
        }
      } while (this.wakeAgain && !this.closed);
    } finally {
      this.waking = false;
    }
  }

  /** Stops reconnecting and waking, and releases the connection. Idempotent. */
  close(): void {
    this.closed = true;
    this.retries.unsubscribe();
    const client = this.client;
    this.client = undefined;
    client?.release(true);
  }

  /** `client`, the LISTEN connection, failed: released, reported once, and made again `retryMs` later (unless closed or replaced already). */
  private lost(client: pg.PoolClient, error: unknown): void {
    if (this.client !== client) return;
    this.client = undefined;
    client.release(true);
    this.hooks.report(new SharedLogError('the LISTEN connection was lost (polling goes on; reconnecting, then catching up)', error));
    this.retry();
  }

  private retry(): void {
    if (this.closed) return;
    this.retries.add(timer(this.retryMs).subscribe(() => void this.connect()));
  }
}
