import type pg from 'pg';
import { interval, Subscription, timer } from 'rxjs';
import { SharedLogError } from './errors';

/** A shared session as its {@link LogListener} sees it. */
export interface ListenerMember {
  readonly sessionId: string;
  /** How soon a lost LISTEN connection is made again, in ms (the smallest of the members' is used). */
  readonly retryMs: number;
  /** Reads the log on from the session's position (failures are the session's to report). */
  catchUp(): void;
  report(error: unknown): void;
}

/** What a session holds of the listener it joined. */
export interface ListenerMembership {
  /** Settles once the listener's first connection attempt did (made, or failed and reported). */
  readonly ready: Promise<void>;
  /** Wakes the readers of the session everywhere: call it after an append committed. Never throws. */
  wake(): void;
  /** Stops waking this member; the last member to leave closes the connection. Idempotent. */
  leave(): void;
}

/** The two channels of a table prefix (see `SharedTables`). */
export interface ListenerChannels {
  /** Wake-ups: the payload is the id of a session that committed. */
  readonly wake: string;
  /** Presence: `J<session id>` (this process opened it: who else has it?) or `H<session id>` (this process has it open). */
  readonly peers: string;
}

/**
 * Sends wake-ups and presence messages: a transaction of its own, with `synchronous_commit` off
 * for it alone (it writes nothing worth a WAL flush, so the notify lock is held for microseconds),
 * one notification per (channel, payload) gathered since the last one was sent.
 */
const SEND = "SELECT set_config('synchronous_commit', 'off', true), pg_notify(c, p) FROM unnest($1::text[], $2::text[]) AS n(c, p)";

/** How long another process counts as having a session open after its last presence message, in ms. */
const PEER_TTL_MS = 30_000;
/** How often a process repeats `H` for the sessions it shares with another process, in ms. */
const PEER_REFRESH_MS = 10_000;

/**
 * Labels the LISTEN connection in `pg_stat_activity.application_name`: the pool's own name (from
 * the connection string or pool config) with ` (rxslice listen)` after it, at most 63 characters
 * (PostgreSQL's limit: the start of a longer name is cut, so the suffix stays). So an operator, or
 * a test, finds the LISTEN connection of a process by name, whatever it last ran (its wake-ups);
 * the pool's other connections keep their name. The connection is never returned to the pool
 * (released with `true`).
 */
const LABEL = "SELECT set_config('application_name', right(ltrim(current_setting('application_name') || ' (rxslice listen)'), 63), false)";

/**
 * @internal The one LISTEN connection of a pool and table prefix in this process (docs/SCALING.md,
 * "Connections"), shared by every shared session made on that pool: the channel is one per
 * prefix, the payload names the session, and a notification wakes a catch-up of each session
 * object of that id here. A connection that cannot be made or is lost is reported to every member
 * and released, and made again `retryMs` later (polling reads on meanwhile); every connection made
 * is followed by a catch-up of every member, for the events committed while no one listened.
 *
 * @remarks It also sends this process's wake-ups ({@link ListenerMembership.wake}), after an
 * append committed. A NOTIFY inside the write transaction makes its commit take PostgreSQL's
 * database-wide notify lock (`object pg_database objid 0`, AccessExclusiveLock) and hold it
 * through the commit's WAL flush, so every session of the database would commit one at a time.
 * The wake-up is a transaction of its own instead, without a WAL flush, coalesced: while one is
 * on its way, the sessions that commit meanwhile are gathered and woken by the next one, sent
 * when it returns. Sent on the LISTEN connection, it comes back here with that connection's
 * backend id and is ignored: the other session objects of this process for that session are
 * woken directly instead. With no LISTEN connection it goes through the pool.
 *
 * A wake-up is only a hint: readers read by position, apply a contiguous prefix, and poll
 * behind it. One lost (a connection broke, the process died between commit and wake-up) or late
 * delays a reader by at most its polling interval; one early finds nothing new. Neither can lose
 * or reorder an event.
 *
 * **No wake-up when no one else reads.** A session open in this process only (each process on
 * its own session, the common case at scale) sends no NOTIFY at all: it would cost a transaction,
 * a delivery to every listener of the prefix and a wake of each of their processes, for no
 * reader. Processes say which sessions they have open on the peers channel: on LISTEN (and for
 * each session opened later) `J<id>` ("joined"); a process that has the session open answers
 * `H<id>` ("here"), as does one that learns of its first other process on that session; those
 * that share a session repeat `H<id>` every 10 s, and a process counts as gone 30 s after its
 * last. A commit wakes the other processes when one is known or while this process does not
 * listen (it cannot hear joins then). Every presence message received makes the session's
 * members here catch up, which closes the race of a join with a commit that skipped its wake-up:
 * the writer decided to skip after its commit and before hearing the join, so its answer `H`,
 * sent after that, makes the joiner read the event (and the joiner's own commits made before it
 * heard of the writer are found by the writer's catch-up on the joiner's `H`).
 */
export class LogListener {
  private static readonly byPool = new WeakMap<pg.Pool, Map<string, LogListener>>();

  /** Joins the LISTEN connection of `pool` and `channel` in this process (made by the first member). */
  static join(pool: pg.Pool, channels: ListenerChannels, member: ListenerMember): ListenerMembership {
    let listeners = LogListener.byPool.get(pool);
    if (listeners === undefined) LogListener.byPool.set(pool, (listeners = new Map()));
    let listener = listeners.get(channels.wake);
    if (listener === undefined) {
      listener = new LogListener(pool, channels);
      listeners.set(channels.wake, listener);
      listener.ready = listener.connect();
    } else if (listener.client !== undefined) {
      member.catchUp(); // joined a connection already listening
    }
    return listener.add(member);
  }

  private client: pg.PoolClient | undefined;
  /** The client's LISTEN is done: wake-ups may go on it (one statement at a time on a client). */
  private listening = false;
  private ready: Promise<void> = Promise.resolve();
  private closed = false;
  private waking = false;
  /** Sessions whose wake-up waits for the one on its way. */
  private readonly toWake = new Set<string>();
  /** Presence messages waiting for the next send, by session id (`J` asks for answers, so it wins over `H`). */
  private readonly toAnnounce = new Map<string, 'J' | 'H'>();
  /** Until when (Date.now() ms) another process counts as having the session open, by session id. */
  private readonly peersUntil = new Map<string, number>();
  private readonly members = new Map<string, Set<ListenerMember>>();
  /** Pending reconnection timers, and the presence refresh. */
  private readonly retries = new Subscription();

  private constructor(
    private readonly pool: pg.Pool,
    private readonly channels: ListenerChannels,
  ) {
    this.retries.add(interval(PEER_REFRESH_MS).subscribe(() => this.refreshPeers()));
  }

  private add(member: ListenerMember): ListenerMembership {
    let same = this.members.get(member.sessionId);
    if (same === undefined) {
      this.members.set(member.sessionId, (same = new Set()));
      // A session new to this process: ask who else has it open (else at the next LISTEN).
      if (this.listening) this.announce(member.sessionId, 'J');
    }
    same.add(member);
    let left = false;
    return {
      ready: this.ready,
      wake: () => {
        if (!left) this.wake(member);
      },
      leave: () => {
        if (left) return;
        left = true;
        this.remove(member);
      },
    };
  }

  private remove(member: ListenerMember): void {
    const same = this.members.get(member.sessionId);
    same?.delete(member);
    if (same?.size === 0) {
      this.members.delete(member.sessionId);
      this.peersUntil.delete(member.sessionId);
    }
    if (this.members.size > 0) return;
    const listeners = LogListener.byPool.get(this.pool);
    if (listeners?.get(this.channels.wake) === this) listeners.delete(this.channels.wake);
    this.close();
  }

  private *everyMember(): Iterable<ListenerMember> {
    for (const same of this.members.values()) yield* same;
  }

  private reportAll(error: SharedLogError): void {
    for (const member of this.everyMember()) member.report(error);
  }

  private async connect(): Promise<void> {
    if (this.closed) return;
    let client: pg.PoolClient;
    try {
      client = await this.pool.connect();
    } catch (error) {
      this.reportAll(new SharedLogError('connecting the LISTEN client failed (polling goes on; retrying)', error));
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
      if (message.processId === pid || message.payload === undefined) return;
      if (message.channel === this.channels.peers) this.heard(message.payload);
      else for (const member of this.members.get(message.payload) ?? []) member.catchUp();
    });
    this.client = client;
    try {
      // One round trip (the simple protocol runs all three statements).
      await client.query(`${LABEL}; LISTEN "${this.channels.wake}"; LISTEN "${this.channels.peers}"`);
    } catch (error) {
      this.lost(client, error);
      return;
    }
    this.listening = this.client === client;
    if (this.listening) for (const id of this.members.keys()) this.announce(id, 'J');
    // Events committed while no one listened: read them by position.
    for (const member of [...this.everyMember()]) member.catchUp();
  }

  /** A presence message of another process (`J` or `H` and a session id). */
  private heard(payload: string): void {
    const kind = payload[0];
    const id = payload.slice(1);
    const same = this.members.get(id);
    if (same === undefined || (kind !== 'J' && kind !== 'H')) return;
    const now = Date.now();
    const known = (this.peersUntil.get(id) ?? 0) > now;
    this.peersUntil.set(id, now + PEER_TTL_MS);
    // Its commits made before it knew of this process sent no wake-up: read them (see the class remarks).
    for (const member of same) member.catchUp();
    if (kind === 'J' || !known) this.announce(id, 'H');
  }

  /** Repeats `H` for the sessions shared with another process, so that they keep counting this one. */
  private refreshPeers(): void {
    if (!this.listening) return;
    const now = Date.now();
    for (const [id, until] of this.peersUntil) if (until > now && this.members.has(id)) this.announce(id, 'H');
  }

  private announce(id: string, kind: 'J' | 'H'): void {
    if (this.toAnnounce.get(id) !== 'J') this.toAnnounce.set(id, kind);
    this.send();
  }

  /**
   * Wakes the other session objects of `from`'s session here at once, and the other processes
   * that have it open by a coalesced NOTIFY (when one is known, or while this process cannot hear
   * joins: see the class remarks).
   */
  private wake(from: ListenerMember): void {
    if (this.closed) return;
    for (const member of this.members.get(from.sessionId) ?? []) if (member !== from) member.catchUp();
    if (this.listening && (this.peersUntil.get(from.sessionId) ?? 0) <= Date.now()) return;
    this.toWake.add(from.sessionId);
    this.send();
  }

  private send(): void {
    if (this.waking) return;
    this.waking = true;
    void this.sendWakeUps();
  }

  private async sendWakeUps(): Promise<void> {
    try {
      while ((this.toWake.size > 0 || this.toAnnounce.size > 0) && !this.closed) {
        const sessions = [...this.toWake];
        this.toWake.clear();
        const client = this.listening ? this.client : undefined;
        const channels = sessions.map(() => this.channels.wake);
        const payloads = [...sessions];
        // Presence goes on the LISTEN connection only (without one, joins are sent on the next LISTEN).
        if (client !== undefined) {
          for (const [id, kind] of this.toAnnounce) {
            channels.push(this.channels.peers);
            payloads.push(kind + id);
          }
        }
        this.toAnnounce.clear();
        if (payloads.length === 0) continue;
        try {
          await (client ?? this.pool).query(SEND, [channels, payloads]);
        } catch (error) {
          if (this.closed || (client !== undefined && this.client !== client)) continue;
          // A wake-up that fails on the LISTEN connection finds it broken (killed mid-statement, the
          // client may never say so otherwise): it is lost, reported once, and made again.
          if (client !== undefined) {
            this.lost(client, error);
            continue;
          }
          const failure = new SharedLogError('waking the other processes failed (the append is committed; their polling finds it)', error);
          for (const id of sessions) for (const member of this.members.get(id) ?? []) member.report(failure);
        }
      }
    } finally {
      this.waking = false;
    }
  }

  private close(): void {
    this.closed = true;
    this.retries.unsubscribe();
    const client = this.client;
    this.client = undefined;
    this.listening = false;
    client?.release(true);
  }

  /** `client`, the LISTEN connection, failed: released, reported once to every member, and made again later (unless closed or replaced already). */
  private lost(client: pg.PoolClient, error: unknown): void {
    if (this.client !== client) return;
    this.client = undefined;
    this.listening = false;
    client.release(true);
    this.reportAll(new SharedLogError('the LISTEN connection was lost (polling goes on; reconnecting, then catching up)', error));
    this.retry();
  }

  private retry(): void {
    if (this.closed) return;
    let ms = Infinity;
    for (const member of this.everyMember()) ms = Math.min(ms, member.retryMs);
    this.retries.add(timer(Number.isFinite(ms) ? ms : 1_000).subscribe(() => void this.connect()));
  }
}
