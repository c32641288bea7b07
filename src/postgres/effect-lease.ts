import type pg from 'pg';
import { BehaviorSubject, Subscription, timer, type Observable } from 'rxjs';
import { SharedLogError } from './errors';

/** What the effect lease asks of the shared session it serves. */
export interface EffectLeaseHost {
  /** Runs once the lock is taken, before the work starts (the holder catches up with the log first). */
  catchUp(): Promise<unknown>;
  /** Starts the holder's work (effects, sagas); the subscription is ended when the lease ends. */
  startWork(): Subscription;
  report(error: unknown): void;
}

/**
 * The effect lease of one shared session: a session-level advisory lock held on a connection of
 * its own, so that one process at a time runs effects and sagas. A process without it tries to
 * take it every `retryMs`; the holder checks its connection as often. PostgreSQL frees the lock
 * when that connection closes (the holder died or disposed), and another process takes it over.
 * When the holder's connection fails, its work stops and the failure is reported.
 */
export class EffectLease {
  private client: pg.PoolClient | undefined;
  private work: Subscription | undefined;
  private busy = false;
  private disposed = false;
  private readonly subject = new BehaviorSubject(false);
  private readonly ticks: Subscription;

  constructor(
    private readonly pool: pg.Pool,
    private readonly key: readonly [number, number],
    retryMs: number,
    private readonly host: EffectLeaseHost,
  ) {
    this.ticks = timer(0, retryMs).subscribe(() => void this.tick());
  }

  /** Whether this process holds the lease (replays the current value, then changes). */
  get held$(): Observable<boolean> {
    return this.subject.asObservable();
  }

  get held(): boolean {
    return this.subject.value;
  }

  private async tick(): Promise<void> {
    if (this.busy || this.disposed) return;
    this.busy = true;
    try {
      if (this.client !== undefined) await this.check(this.client);
      else await this.tryTake();
    } finally {
      this.busy = false;
    }
  }

  private async check(client: pg.PoolClient): Promise<void> {
    try {
      await client.query('SELECT 1');
    } catch (error) {
      this.lose(client, error);
    }
  }

  private async tryTake(): Promise<void> {
    let client: pg.PoolClient;
    try {
      client = await this.pool.connect();
    } catch {
      return; // the database is away; try again later
    }
    // From the first moment: a checked-out client whose connection dies emits 'error', and an
    // 'error' nobody listens to would end the process.
    const onError = (error: Error): void => this.lose(client, error);
    client.on('error', onError);
    let ok = false;
    let failed = false;
    try {
      const { rows } = await client.query<{ ok: boolean }>('SELECT pg_try_advisory_lock($1::int, $2::int) AS ok', [this.key[0], this.key[1]]);
      ok = rows[0]?.ok === true;
    } catch {
      failed = true;
    }
    if (!ok || this.disposed) {
      client.off('error', onError);
      // Back to the pool when no lock is held on it and it works; else its connection is closed.
      client.release(ok || failed ? true : undefined);
      return;
    }
    this.client = client;
    try {
      await this.host.catchUp();
    } catch (error) {
      this.lose(client, error);
      return;
    }
    if (this.client !== client || this.disposed) return;
    this.work = this.host.startWork();
    this.subject.next(true);
  }

  private lose(client: pg.PoolClient, error: unknown): void {
    if (this.client !== client) return;
    this.client = undefined;
    client.release(true);
    this.stopWork();
    this.host.report(new SharedLogError('the effect lease was lost (its connection failed); effects and sagas stopped here until this process takes the lease again', error));
  }

  private stopWork(): void {
    this.work?.unsubscribe();
    this.work = undefined;
    if (this.subject.value) this.subject.next(false);
  }

  /** Stops the work and trying; closing the lease connection frees the lock at once. */
  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.ticks.unsubscribe();
    this.stopWork();
    this.subject.complete();
    const client = this.client;
    this.client = undefined;
    client?.release(true);
  }
}
