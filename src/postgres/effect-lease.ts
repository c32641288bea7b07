import type pg from 'pg';
import { BehaviorSubject, Subscription, timer, type Observable } from 'rxjs';
import { SharedLogError } from './errors';
import { LeaseConnection, type LeaseHolder } from './lease-connection';

/** What the effect lease asks of the shared session it serves. */
export interface EffectLeaseHost {
  /** Runs once the lock is taken, before the work starts (the holder catches up with the log first). */
  catchUp(): Promise<unknown>;
  /** Starts the holder's work (effects, sagas); the subscription is ended when the lease ends. */
  startWork(): Subscription;
  report(error: unknown): void;
}

/**
 * The effect lease of one shared session: a session-level advisory lock, so that one process at
 * a time runs effects and sagas. It is held on the lease connection of the session's pool, shared
 * by every session made on that pool in this process ({@link LeaseConnection}). A process without
 * it tries to take it every `retryMs`; the holder checks the connection as often. PostgreSQL frees
 * the lock when that connection closes (the holder died) or the session is disposed (unlocked),
 * and another process takes it over. When the connection fails, the work stops, the failure is
 * reported, and the lease is taken again once the database answers (if no other process took it).
 */
export class EffectLease implements LeaseHolder {
  private taken = false;
  private work: Subscription | undefined;
  private busy = false;
  private disposed = false;
  private readonly subject = new BehaviorSubject(false);
  private readonly ticks: Subscription;
  private readonly connection: LeaseConnection;

  constructor(
    pool: pg.Pool,
    private readonly key: readonly [number, number],
    retryMs: number,
    private readonly host: EffectLeaseHost,
  ) {
    this.connection = LeaseConnection.join(pool);
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
      if (this.taken) await this.connection.check();
      else await this.tryTake();
    } finally {
      this.busy = false;
    }
  }

  private async tryTake(): Promise<void> {
    if (!(await this.connection.tryLock(this.key, this))) return;
    if (this.disposed) {
      await this.connection.unlock(this.key, this);
      return;
    }
    this.taken = true;
    try {
      await this.host.catchUp();
    } catch (error) {
      // Not caught up: let another process (or a later tick here) take it.
      this.taken = false;
      await this.connection.unlock(this.key, this);
      this.host.report(new SharedLogError('the effect lease was taken but the log could not be read; it was released and is tried again', error));
      return;
    }
    if (!this.taken || this.disposed) return;
    this.work = this.host.startWork();
    this.subject.next(true);
  }

  /** @internal Told by the lease connection when it failed. */
  lost(error: unknown): void {
    if (!this.taken) return;
    this.taken = false;
    this.stopWork();
    this.host.report(new SharedLogError('the effect lease was lost (its connection failed); effects and sagas stopped here until this process takes the lease again', error));
  }

  private stopWork(): void {
    this.work?.unsubscribe();
    this.work = undefined;
    if (this.subject.value) this.subject.next(false);
  }

  /** Stops the work and trying, and frees the lock; resolves once PostgreSQL freed it. Never rejects. */
  dispose(): Promise<void> {
    if (this.disposed) return Promise.resolve();
    this.disposed = true;
    this.ticks.unsubscribe();
    this.stopWork();
    this.subject.complete();
    const unlocked = this.taken ? this.connection.unlock(this.key, this) : Promise.resolve();
    this.taken = false;
    this.connection.leave();
    return unlocked;
  }
}
