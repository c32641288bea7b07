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
 * @internal The LISTEN connection of a shared session (docs/ARCHITECTURE.md, "Shared sessions"):
 * a notification naming the session wakes a catch-up. A connection that cannot be made or is lost
 * is reported and released, and tried again `retryMs` later (polling reads on meanwhile); every
 * connection made is followed by a catch-up, for the events committed while no one listened.
 */
export class LogListener {
  private client: pg.PoolClient | undefined;
  private closed = false;
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
    const lost = (error: unknown): void => {
      if (this.client !== client) return;
      this.client = undefined;
      client.release(true);
      this.hooks.report(new SharedLogError('the LISTEN connection was lost (polling goes on; reconnecting, then catching up)', error));
      this.retry();
    };
    client.on('error', lost);
    client.on('notification', (message) => {
      if (message.payload === this.sessionId) this.hooks.catchUp();
    });
    this.client = client;
    try {
      await client.query(`LISTEN "${this.channel}"`);
    } catch (error) {
      lost(error);
      return;
    }
    // Events committed while no one listened: read them by position.
    this.hooks.catchUp();
  }

  /** Stops reconnecting and releases the connection. Idempotent. */
  close(): void {
    this.closed = true;
    this.retries.unsubscribe();
    const client = this.client;
    this.client = undefined;
    client?.release(true);
  }

  private retry(): void {
    if (this.closed) return;
    this.retries.add(timer(this.retryMs).subscribe(() => void this.connect()));
  }
}
