import type pg from 'pg';
import { interval, of, Subscription, timer, type Observable } from 'rxjs';
import type { Event } from '../events/event';
import type { Envelope } from '../events/envelope';
import type { ChannelDef } from '../events/define-channel';
import { RxSliceError } from '../internal/errors';
import { createCoreSession } from '../session/create-core-session';
import { snapshotLayer, withSnapshotMethods } from '../session/snapshot-layer';
import type { Attachable, EvictedItems, Session, SnapshotOptions } from '../session/session-types';
import type { CommittedEnvelope } from '../session/committed-envelope';
import { InvalidEventError, SessionDisposedError } from '../session/errors';
import { SESSION_INTERNALS } from '../session/internals';
import type { Channel } from '../events/channel-runtime';
import type { SliceHandle } from '../session/slice-handle';
import type { SliceDef } from '../slices/reducer';
import { snapshotFromJSON } from '../snapshots/codec';
import { checkedDefOf, type Snapshot } from '../snapshots/snapshot';
import { resumeSagas } from '../sagas/run-saga';
import { sagaRuntime } from '../sagas/saga-runtime';
import { EffectLease } from './effect-lease';
import { LogListener, type ListenerChannels, type ListenerMembership } from './log-listener';
import { SharedLogError, SharedLogGapError } from './errors';
import type { LoggedEvent, PendingAppend, PostgresEventLog } from './event-log';
import type { SharedCommit, SharedDispatchOptions, SharedSession, SharedSessionOptions, SharedStartup } from './shared-session-types';
import { clip, quote } from '../internal/quote';

interface Outgoing {
  readonly pending: PendingAppend;
  readonly expectedSeq: number | undefined;
  resolve(commit: SharedCommit): void;
  reject(error: unknown): void;
  /** Someone awaits the promise (a `dispatch` call); else failures go to `errors$`. */
  readonly awaited: boolean;
  readonly promise: Promise<SharedCommit>;
}

const READ_BATCH = 2_000;
/** Events per FETCH of the cold open's cursor. */
const REPLAY_BATCH = 5_000;
const NEVER_HELD: Observable<boolean> = of(false);
const GAP_REPORT_AFTER = 3;

const toJSONText = (value: unknown, what: string, type: string): string => {
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch (cause) {
    throw new InvalidEventError(type, [{ code: 'invalid_event', path: [what], message: `a shared session stores events as JSON, and this ${what} cannot be written as JSON (${(cause as Error).message})` }], cause);
  }
  return text ?? 'null';
};

/**
 * @internal The session of one process in a shared session (made by `createSharedSession`, in
 * ./create-shared-session.ts): a local core session that forwards what it accepts to the log
 * (group commit), reduces the log in `seq` order, and runs effects and sagas while it holds the lease.
 */
export class SharedSessionImpl implements SharedSession {
  readonly sessionId: string;
  readonly local: Session;
  private readonly internals;
  private position = 0;
  private readonly known = new Map<number, LoggedEvent>();
  private readonly waiters = new Map<number, Outgoing[]>();
  private readonly outbox: Outgoing[] = [];
  private flushing = false;
  private dispatchOptions: SharedDispatchOptions | undefined;
  private made: Outgoing | undefined;
  private lastCommitted: CommittedEnvelope | undefined;
  private catching: Promise<number> | undefined;
  private again = false;
  private gapReads = 0;
  private gapReported = false;
  private applying = false;
  private inFlight: Map<number, { readonly committed: CommittedEnvelope; readonly failure: unknown }> | undefined;
  private disposed = false;
  private readonly subscription = new Subscription();
  private listener: ListenerMembership | undefined;
  private catchUpRetry = false;
  private lease: EffectLease | undefined;
  private lastSnapshotSeq = 0;
  private snapshotting = false;
  startup: SharedStartup = { fromSnapshot: undefined, replayed: 0, snapshotError: undefined, ms: 0 };

  constructor(
    private readonly options: SharedSessionOptions,
    private readonly pool: pg.Pool,
    private readonly ownPool: boolean,
    /** Releases this session's hold on the pool's shared `error` listener (see `guardPool`). */
    private readonly releasePool: () => void,
    private readonly log: PostgresEventLog,
    /** The LISTEN/NOTIFY channels of the table prefix: wake-ups, and who has which session open. */
    private readonly channels: ListenerChannels,
    private readonly leaseKey: readonly [number, number],
  ) {
    this.sessionId = options.sessionId;
    this.local = withSnapshotMethods(createCoreSession({
      slices: options.slices,
      middleware: { reducers: options.middleware?.reducers ?? [] },
      ...(options.events === undefined ? {} : { events: options.events }),
      ...(options.scheduler === undefined ? {} : { scheduler: options.scheduler }),
      ...(options.validation === undefined ? {} : { validation: options.validation }),
      ...(options.freeze === undefined ? {} : { freeze: options.freeze }),
      ...(options.channels === undefined ? {} : { channels: options.channels }),
    }));
    this.internals = this.local[SESSION_INTERNALS];
    this.internals.onCommitted({ onCommitted: (committed) => void (this.lastCommitted = committed) });
  }

  get lastSeq(): number {
    return this.position;
  }
  get hasLease(): boolean {
    return this.lease?.held ?? false;
  }
  get lease$(): Observable<boolean> {
    return this.lease?.held$ ?? NEVER_HELD;
  }
  get events$(): Observable<Envelope> {
    return this.local.events$;
  }
  get committed$(): Observable<CommittedEnvelope> {
    return this.local.committed$;
  }
  get errors$(): Observable<RxSliceError> {
    return this.local.errors$;
  }
  get evicted$(): Observable<EvictedItems> {
    return this.local.evicted$;
  }

  read<TItem>(slice: SliceDef<string, TItem> | string): readonly TItem[] {
    return this.local.read(slice);
  }
  slice<TItem>(def: SliceDef<string, TItem>): SliceHandle<TItem> {
    return this.local.slice(def);
  }
  computed<THandle>(def: Attachable<THandle>): THandle {
    return this.local.computed(def);
  }
  channel<TEvent extends { readonly type: string }>(def: ChannelDef<string, TEvent>): Channel<TEvent> {
    return this.local.channel(def);
  }
  snapshot(options?: SnapshotOptions): Snapshot {
    return snapshotLayer(this.local).snapshot(options);
  }

  // ---- start ------------------------------------------------------------------------------

  async start(started: number): Promise<void> {
    const options = this.options;
    options.install?.(this.local);
    if (options.sagas !== undefined) {
      sagaRuntime(this.local); // the progress slice, in every process
      // Every process may dispatch a saga's startOn event (the lease holder starts the run): it is
      // known everywhere, not only where the sagas are registered.
      this.internals.declareEvents(options.sagas.flatMap((def) => (def.startOn === undefined ? [] : [def.startOn.type])));
    }
    await this.restoreLatestSnapshot();
    this.internals.forwardTo((env) => this.forward(env));
    const from = this.position;
    await this.replay();
    this.listener = LogListener.join(this.pool, this.channels, {
      sessionId: this.sessionId,
      retryMs: options.leaseRetryMs ?? 1_000,
      catchUp: () => void this.catchUp().catch((e: unknown) => this.report(e)),
      report: (error) => this.report(error),
    });
    await this.listener.ready;
    await this.catchUp();
    this.startup = { ...this.startup, replayed: this.position - from, ms: Date.now() - started };
    this.subscription.add(interval(options.pollIntervalMs ?? 1_000).subscribe(() => this.catchUp().catch((e: unknown) => this.report(e))));
    this.lease = new EffectLease(this.pool, this.leaseKey, options.leaseRetryMs ?? 1_000, {
      catchUp: () => this.catchUp(),
      startWork: () => this.startLeaseWork(),
      report: (error) => this.report(error),
    });
  }

  private async restoreLatestSnapshot(): Promise<void> {
    const row = await this.log.latestSnapshot();
    if (row === undefined || row.seq <= 0) return;
    let snapshot: Snapshot;
    try {
      const registered = this.registeredDefs();
      snapshot = snapshotFromJSON(row.data, registered, { maxBytes: this.options.snapshotMaxBytes ?? 512 * 1024 * 1024 });
      const missing = registered.map((def) => def.name).filter((name) => !(name in snapshot.slices));
      if (missing.length > 0) throw new SharedLogError(`the snapshot at seq ${row.seq} does not hold slice(s) ${clip(missing.join(', '))}; replaying the whole log instead`);
    } catch (error) {
      this.startup = { ...this.startup, snapshotError: error instanceof RxSliceError ? error : new SharedLogError('reading the snapshot failed', error) };
      return;
    }
    this.internals.skipTo(row.seq);
    snapshotLayer(this.local).restore(snapshot);
    this.position = this.lastSnapshotSeq = row.seq;
    this.startup = { ...this.startup, fromSnapshot: row.seq };
  }

  /**
   * The cold open's replay of the log after the snapshot (or from the start): one streamed
   * read ({@link PostgresEventLog.stream}) reduced event by event straight into the local session,
   * without the live path's bookkeeping (no waiting dispatches, appends in flight, or out-of-order
   * events can exist yet). Stops at a hole (the catch-up that follows waits there and reports it).
   * A reducer that throws changes nothing, as on the live path (the session reports it).
   */
  private async replay(): Promise<void> {
    await this.log.stream(this.position, REPLAY_BATCH, (events) => {
      if (this.disposed) return false;
      for (const logged of events) {
        if (logged.seq !== this.position + 1) return false;
        try {
          this.internals.applyLogged({ seq: logged.seq, at: logged.at, event: { type: logged.type, payload: logged.payload }, meta: logged.meta });
        } catch {
          // ReducerError: the event changed nothing, in every process alike (reported on errors$).
        }
        this.position = logged.seq;
      }
      return true;
    });
  }

  /** Every slice registered in the local session (the options' slices, statecharts', sagas'). */
  private registeredDefs(): SliceDef<string, any>[] {
    const snapshot = snapshotLayer(this.local).snapshot({ includeLogs: true });
    return Object.keys(snapshot.slices).map((name) => checkedDefOf(snapshot, name) as SliceDef<string, any>);
  }

  // ---- dispatch and append ----------------------------------------------------------------

  dispatch<TEvent extends Event>(event: TEvent, options?: SharedDispatchOptions): Promise<SharedCommit<TEvent>> {
    if (this.disposed) return Promise.reject(new SessionDisposedError(`dispatch ${quote(String((event as { type?: unknown } | null)?.type))}`));
    if (options?.expectedSeq !== undefined && !(Number.isSafeInteger(options.expectedSeq) && options.expectedSeq >= 0)) {
      return Promise.reject(new SharedLogError(`expectedSeq must be a non-negative integer; got ${clip(options.expectedSeq)}`));
    }
    if (options?.idempotencyKey !== undefined && (typeof options.idempotencyKey !== 'string' || options.idempotencyKey.length === 0)) {
      return Promise.reject(new SharedLogError('idempotencyKey must be a non-empty string'));
    }
    this.dispatchOptions = options ?? {};
    this.made = undefined;
    try {
      this.local.dispatch(event, options?.meta);
    } catch (error) {
      return Promise.reject(error);
    } finally {
      this.dispatchOptions = undefined;
    }
    const made = this.made as Outgoing | undefined;
    this.made = undefined;
    if (made === undefined) return Promise.reject(new SharedLogError('the event was not forwarded to the log'));
    return made.promise as Promise<SharedCommit<TEvent>>;
  }

  /** Called by the local session for every envelope it accepts (user dispatches, effects, sagas). */
  private forward(env: Envelope): void {
    if (this.disposed) throw new SessionDisposedError(`dispatch ${quote(env.event.type)}`);
    const options = this.dispatchOptions;
    this.dispatchOptions = undefined;
    const pending: PendingAppend = {
      at: env.at,
      type: env.event.type,
      payload: toJSONText(env.event.payload, 'payload', env.event.type),
      meta: toJSONText(env.meta, 'meta', env.event.type),
      idempotencyKey: options?.idempotencyKey ?? null,
    };
    let resolve!: (commit: SharedCommit) => void;
    let reject!: (error: unknown) => void;
    const promise = new Promise<SharedCommit>((res, rej) => {
      resolve = res;
      reject = rej;
    });
    const outgoing: Outgoing = { pending, expectedSeq: options?.expectedSeq, resolve, reject, awaited: options !== undefined, promise };
    if (options === undefined) promise.catch(() => undefined);
    this.made = outgoing;
    this.outbox.push(outgoing);
    if (!this.flushing) {
      this.flushing = true;
      // After the current synchronous burst: its dispatches share one statement.
      queueMicrotask(() => void this.flush());
    }
  }

  private async flush(): Promise<void> {
    const max = this.options.maxBatch ?? 500;
    try {
      while (this.outbox.length > 0 && !this.disposed) {
        const first = this.outbox[0] as Outgoing;
        let count = 1;
        if (first.expectedSeq === undefined) while (count < this.outbox.length && count < max && (this.outbox[count] as Outgoing).expectedSeq === undefined) count++;
        const batch = this.outbox.splice(0, count);
        let results;
        // Outcomes of events applied while this append is on its way (see below).
        this.inFlight = new Map();
        try {
          results = await this.log.append(
            batch.map((o) => o.pending),
            first.expectedSeq,
          );
        } catch (error) {
          this.inFlight = undefined;
          // Dispatches queued behind a failed append fail with it: appending them now could put
          // them in the log before the failed ones are retried, out of this process's call order.
          for (const o of [...batch, ...this.outbox.splice(0)]) this.fail(o, error);
          continue;
        }
        // Committed: wake the readers of other processes (after the commit, not inside it; see LogListener).
        if (results.some((r) => !r.duplicate)) this.listener?.wake();
        for (let i = 0; i < batch.length; i++) {
          const o = batch[i] as Outgoing;
          const { event, duplicate } = results[i] as { event: LoggedEvent; duplicate: boolean };
          if (duplicate) {
            const commit: SharedCommit = { seq: event.seq, at: event.at, event: { type: event.type, payload: event.payload }, meta: event.meta, changed: [], effects: [], duplicate: true };
            if (event.seq <= this.position) o.resolve(commit);
            else this.wait(event.seq, { ...o, resolve: () => o.resolve(commit) });
            continue;
          }
          if (event.seq > this.position) {
            this.known.set(event.seq, event);
            this.wait(event.seq, o);
            continue;
          }
          // A read (NOTIFY, polling) applied it while the append's answer was on its way.
          const outcome = this.inFlight?.get(event.seq);
          if (outcome === undefined) o.reject(new SharedLogError(`event seq ${event.seq} was applied before its append returned, and its outcome was not kept`));
          else if (outcome.failure !== undefined) o.reject(outcome.failure);
          else o.resolve({ ...outcome.committed, duplicate: false });
        }
        this.inFlight = undefined;
        this.apply();
      }
    } finally {
      this.flushing = false;
    }
    if (this.outbox.length > 0 && !this.disposed) {
      this.flushing = true;
      void this.flush();
    }
  }

  private wait(seq: number, outgoing: Outgoing): void {
    const list = this.waiters.get(seq);
    if (list === undefined) this.waiters.set(seq, [outgoing]);
    else list.push(outgoing);
  }

  private fail(outgoing: Outgoing, error: unknown): void {
    outgoing.reject(error);
    if (!outgoing.awaited) this.report(error);
  }

  private report(error: unknown): void {
    if (this.disposed) return;
    this.internals.reportError(error instanceof RxSliceError ? error : new SharedLogError('unexpected failure', error));
  }

  // ---- read and apply ---------------------------------------------------------------------

  /** Reduces the known events that continue the applied prefix, in order. */
  private apply(): void {
    if (this.applying || this.disposed) return;
    this.applying = true;
    try {
      for (let next = this.position + 1, logged = this.known.get(next); logged !== undefined; next++, logged = this.known.get(next)) {
        this.known.delete(next);
        this.lastCommitted = undefined;
        let failure: unknown;
        const env: Envelope = { seq: logged.seq, at: logged.at, event: { type: logged.type, payload: logged.payload }, meta: logged.meta };
        try {
          this.internals.applyLogged(env);
        } catch (error) {
          failure = error;
        }
        this.position = next;
        if (this.inFlight !== undefined) {
          const committed = this.lastCommitted as CommittedEnvelope | undefined;
          this.inFlight.set(next, { committed: committed?.seq === next ? committed : { ...env, changed: [], effects: [] }, failure });
        }
        const waiting = this.waiters.get(next);
        if (waiting !== undefined) {
          this.waiters.delete(next);
          const committed = this.lastCommitted as CommittedEnvelope | undefined;
          for (const o of waiting) {
            if (failure !== undefined) o.reject(failure);
            else o.resolve({ ...(committed?.seq === next ? committed : { ...env, changed: [], effects: [] }), duplicate: false });
          }
        }
      }
    } finally {
      this.applying = false;
    }
    this.maybeSnapshot();
    // Own events arrived past events of other processes not read yet.
    if (this.known.size > 0 && !this.disposed) this.catchUp().catch((e: unknown) => this.report(e));
  }

  catchUp(): Promise<number> {
    if (this.disposed) return Promise.resolve(this.position);
    if (this.catching !== undefined) {
      this.again = true;
      return this.catching;
    }
    const run = async (): Promise<number> => {
      try {
        do {
          this.again = false;
          for (;;) {
            const from = this.position;
            const rows = await this.log.read(from, READ_BATCH);
            if (this.disposed) return this.position;
            for (const row of rows) if (row.seq > this.position) this.known.set(row.seq, row);
            this.apply();
            this.noteGap(rows, from);
            if (rows.length < READ_BATCH || this.position === from) break;
          }
        } while (this.again && !this.disposed);
        return this.position;
      } finally {
        this.catching = undefined;
      }
    };
    const running = run();
    this.catching = running;
    running.catch(() => this.retryCatchUp());
    return running;
  }

  /**
   * A catch-up failed (the database is away) while dispatches of this process wait for their
   * events to be applied: it is tried again `leaseRetryMs` later, not only at the next poll or
   * wake-up, so that those dispatches resolve soon after the database is back.
   */
  private retryCatchUp(): void {
    if (this.disposed || this.catchUpRetry || (this.waiters.size === 0 && this.known.size === 0)) return;
    this.catchUpRetry = true;
    this.subscription.add(
      timer(this.options.leaseRetryMs ?? 1_000).subscribe(() => {
        this.catchUpRetry = false;
        this.catchUp().catch((e: unknown) => this.report(e));
      }),
    );
  }

  /** Counts reads that found the log continuing past a missing `seq`; reports a hole that stays. */
  private noteGap(rows: readonly LoggedEvent[], from: number): void {
    const first = rows[0];
    if (first === undefined || first.seq === from + 1) {
      this.gapReads = 0;
      this.gapReported = false;
      return;
    }
    if (++this.gapReads >= GAP_REPORT_AFTER && !this.gapReported) {
      this.gapReported = true;
      this.report(new SharedLogGapError(this.sessionId, from, first.seq));
    }
  }

  // ---- lease: effects and sagas run in one process ---------------------------------------

  /** The lease holder's work: sagas run and resume here, and `onLease` installs effects. */
  private startLeaseWork(): Subscription {
    const work = new Subscription();
    const { sagas, onLease } = this.options;
    if (sagas !== undefined) {
      const runtime = sagaRuntime(this.local);
      runtime.deps = this.options.dependencies;
      work.add(() => runtime.stopAll());
      try {
        runtime.register(sagas);
        for (const resumed of resumeSagas(this.local, { sagas })) resumed.result$.subscribe({ error: () => undefined });
      } catch (error) {
        this.report(error);
      }
    }
    if (onLease !== undefined) {
      try {
        work.add(onLease(this.local) ?? undefined);
      } catch (error) {
        this.report(error);
      }
    }
    return work;
  }

  // ---- snapshots ---------------------------------------------------------------------------

  private maybeSnapshot(): void {
    const every = this.options.snapshotEvery ?? 1_000;
    if (every <= 0 || this.snapshotting || !this.hasLease || this.position - this.lastSnapshotSeq < every) return;
    this.saveSnapshot().catch((e: unknown) => this.report(e));
  }

  async saveSnapshot(): Promise<number> {
    if (this.disposed) throw new SessionDisposedError('save a snapshot');
    const seq = this.position;
    const data = JSON.stringify(snapshotLayer(this.local).snapshot({ includeLogs: true, tag: `rxslice.shared:${seq}` }));
    this.snapshotting = true;
    try {
      await this.log.saveSnapshot(seq, data, Math.max(1, this.options.snapshotsToKeep ?? 2));
      if (seq > this.lastSnapshotSeq) this.lastSnapshotSeq = seq;
    } finally {
      this.snapshotting = false;
    }
    return seq;
  }

  // ---- dispose ----------------------------------------------------------------------------

  async dispose(): Promise<void> {
    if (this.disposed) return;
    this.disposed = true;
    this.subscription.unsubscribe();
    const unlocked = this.lease?.dispose();
    const disposedError = new SessionDisposedError('append an event');
    for (const o of this.outbox.splice(0)) o.reject(disposedError);
    for (const list of this.waiters.values()) for (const o of list) o.reject(disposedError);
    this.waiters.clear();
    this.listener?.leave();
    this.local.dispose();
    await unlocked;
    if (this.ownPool) await this.pool.end().catch(() => undefined);
    else this.releasePool();
  }
}
