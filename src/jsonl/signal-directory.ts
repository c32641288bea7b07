import { mkdirSync, readdirSync, readFileSync, renameSync, statSync, utimesSync, watch as fsWatch, type FSWatcher } from 'node:fs';
import { hostname } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { asyncScheduler, interval, Observable, Subject, timer, type SchedulerLike, type Subscription } from 'rxjs';
import writeFileAtomic from 'write-file-atomic';
import { InvalidSignalError, SAFE_WORD, type SignalChannelDef } from './signal-channel';
import { SignalClaimLostError, SignalDirectoryError, SignalFileRejectedError, SignalHandlerError, type SignalRejectionReason } from './signal-errors';
import { compareSignalNames, formatClaimName, nextStamp, formatSignalName, isDeadProcess, isTempFile, parseClaimName, parseSignalName, randomHex, safeHost, timeToMs, type SignalName } from './signal-names';
import { fsyncDirectory } from './snapshot-file';

/** The `format` of a signal file's JSON envelope. */
export const SIGNAL_FILE_FORMAT = 'rxslice.signal/1';

/** One signal read from its file. */
export interface SignalFile<TSignal> {
  /** The file name without `.json`; unique, and what orders signals. */
  readonly id: string;
  /** Who published it (the pattern's agent type); the start of the file name. */
  readonly source: string;
  /** When it was published (ISO 8601, ms, from the file name). */
  readonly publishedAt: string;
  /** The signal, validated by the channel's schema (its output). */
  readonly signal: TSignal;
  /** Where the file is: the queue (`<dir>/<id>.json`), `claimed/` or `processed/`. */
  readonly path: string;
}

/** A signal this process claimed: nobody else takes it until it is archived, released, or its claim is returned (see {@link createSignalDirectory}). */
export interface ClaimedSignal<TSignal> extends SignalFile<TSignal> {
  /** When it was claimed (ms since the epoch). */
  readonly claimedAtMs: number;
}

/** Options of {@link createSignalDirectory}. */
export interface SignalDirectoryOptions<TChannel extends SignalChannelDef<string, any, any>> {
  /** The directory (created with its `claimed/`, `processed/` and `rejected/` subdirectories if missing). */
  readonly dir: string;
  readonly channel: TChannel;
  /** The default `source` of published signals (a word as for channel names). Default: the channel's name. */
  readonly source?: string;
  /**
   * ms after which a claim that was not renewed (claim time or last `renew`) is returned to the
   * queue by the next poll of any process. Default 300,000 (5 min). `watch` renews the claim of
   * a running handler every `leaseMs / 3`.
   */
  readonly leaseMs?: number;
  /** ms after which a temp file (`*.json.<n>`, `*.tmp`) counts as left by a dead writer and is set aside as `'partial'`. Default 60,000. */
  readonly staleTempMs?: number;
  /** Scheduler of `watch`'s poll timer and lease renewals. Default `asyncScheduler`. File names and leases use the wall clock. */
  readonly scheduler?: SchedulerLike;
}

/** Options of {@link SignalDirectory.watch}. */
export interface WatchSignalsOptions {
  /** ms between two looks at the directory when nothing woke the watcher. Default 1,000. */
  readonly pollIntervalMs?: number;
  /** Also wake on `fs.watch` events of the directory (lower latency; the timer stays as the safety net). Default true. */
  readonly fsWatch?: boolean;
}

/** The handler of {@link SignalDirectory.watch}: resolve when the signal is handled; reject (or throw) to return it to the queue. */
export type SignalHandler<TSignal> = (signal: ClaimedSignal<TSignal>, context: { readonly abortSignal: AbortSignal }) => unknown;

/** A signal channel opened over a directory: see {@link createSignalDirectory}. */
export interface SignalDirectory<TSignal, TInput = TSignal> {
  readonly dir: string;
  readonly channel: SignalChannelDef<string, TSignal, TInput>;
  /** This opener's id as written into its claims: `<pid>~<host>~<random>`. */
  readonly claimerId: string;
  /**
   * Bad files set aside ({@link SignalFileRejectedError}) and claims lost before archive in
   * `watch` ({@link SignalClaimLostError}). Hot: emits synchronously during the poll that found it;
   * completes on `dispose()`. Nothing here ends a poll or a watch.
   */
  readonly errors$: Observable<SignalFileRejectedError | SignalClaimLostError>;
  /**
   * Validates `signal` with the channel's schema and writes it as one file, atomically and
   * durably (temp file, fsync, rename, directory fsync). Synchronous: when it returns, the signal
   * is pending and survives a crash.
   * @param options.source - Who publishes (the pattern's agent type); default the directory's `source`.
   * @returns The signal as pollers will read it (`path` in the queue).
   * @throws {@link InvalidSignalError} (with zod's `issues`) when it fails the schema or `source` is not a word; nothing is written.
   * @throws {@link SignalDirectoryError} when the file system fails; no file is left in the queue.
   * @example
   * ```ts
   * const s = signals.publish({ status: 'completed', nextState: 'review' }, { source: 'planner' });
   * console.log(s.path); // Logs: .agent-signals/planner-20261128T093246123Z-00000001-4242-9f3a1c2e.json
   * ```
   */
  publish(signal: TInput, options?: { readonly source?: string }): SignalFile<TSignal>;
  /**
   * The pending signals (not claimed, archived or rejected), in order, each read and validated.
   * Synchronous. Claims abandoned by dead processes or past their lease go back to the queue
   * first; bad files are set aside and reported on `errors$` (synchronously) instead.
   * Polling claims nothing: use `claim`/`claimNext`/`watch` when several pollers compete.
   * @throws {@link SignalDirectoryError} when the directory cannot be read.
   * @example
   * ```ts
   * for (const s of signals.poll()) console.log(s.source, s.signal.status); // Logs: planner completed
   * ```
   */
  poll(): readonly SignalFile<TSignal>[];
  /**
   * Claims one pending signal by renaming it into `claimed/` under this claimer's id: of several
   * processes claiming one signal, exactly one gets it. Synchronous.
   * @param signal - A polled signal, or its `id`.
   * @returns The claimed signal (`path` under `claimed/`), or `undefined` when another claimer
   * took it first (or it was set aside as bad: then `errors$` says so).
   * @example
   * ```ts
   * const [first] = signals.poll();
   * const mine = first && signals.claim(first); // undefined if another orchestrator was faster
   * ```
   */
  claim(signal: SignalFile<TSignal> | string): ClaimedSignal<TSignal> | undefined;
  /**
   * Claims the first pending signal in order that this claimer can take; `undefined` when the
   * queue is empty. Synchronous; reads only the file it claims.
   * @example
   * ```ts
   * for (let s = signals.claimNext(); s; s = signals.claimNext()) { handle(s.signal); signals.archive(s); }
   * ```
   */
  claimNext(): ClaimedSignal<TSignal> | undefined;
  /**
   * Moves a signal whose handler finished into `processed/<id>.json` (and fsyncs the folder):
   * a claimed one, or a pending one (the pattern's `archive_signal(path)`, which claims and
   * archives in one rename). Synchronous.
   * @param signal - A signal from `claim`/`claimNext`/`poll`, or the path of its file.
   * @returns The signal with its `path` under `processed/`.
   * @throws {@link SignalClaimLostError} when the file is gone (taken by another poller, or the claim was returned after its lease).
   * @example
   * ```ts
   * const done = signals.archive(claimed);
   * console.log(done.path); // Logs: .agent-signals/processed/planner-20261128T093246123Z-00000001-4242-9f3a1c2e.json
   * ```
   */
  archive(signal: SignalFile<TSignal> | string): SignalFile<TSignal>;
  /**
   * Gives a claimed signal back to the queue, in its place (its name, hence its order, is unchanged). Synchronous.
   * @throws {@link SignalClaimLostError} when the claim is already gone.
   * @example
   * ```ts
   * signals.release(claimed); // another poller (or this one) takes it again
   * ```
   */
  release(signal: ClaimedSignal<TSignal>): SignalFile<TSignal>;
  /**
   * Extends a claim's lease by `leaseMs` from now (touches the claimed file). Call it more often
   * than every `leaseMs` while a handler runs longer than that; `watch` does it by itself.
   * @throws {@link SignalClaimLostError} when the claim was already returned to the queue.
   * @example
   * ```ts
   * const beat = setInterval(() => signals.renew(claimed), 60_000);
   * ```
   */
  renew(signal: ClaimedSignal<TSignal>): void;
  /**
   * An orchestrator's loop as a cold observable: on subscribe, and then whenever the directory
   * changes (`fs.watch`) or every `pollIntervalMs` on the scheduler, claims the pending signals in
   * order, one at a time; for each, awaits `handler` (renewing the claim every `leaseMs / 3`),
   * archives it, then emits it (asynchronously, with its `processed/` path).
   *
   * @remarks Never completes by itself; completes on `dispose()`. A handler that throws or rejects
   * gets its signal released back to the queue and the observable errors with
   * {@link SignalHandlerError} (resubscribe, e.g. `retry({ delay: 1000 })`, to go on). Unsubscribing
   * aborts `abortSignal`; a handler that still finishes has its signal archived (its work is done),
   * one that fails has it released. Bad files and lost claims go to `errors$`.
   * @example
   * ```ts
   * signals.watch(async (s) => { await runAgent(s.signal.nextState); }).subscribe((s) => console.log('done', s.id));
   * ```
   */
  watch(handler: SignalHandler<TSignal>, options?: WatchSignalsOptions): Observable<SignalFile<TSignal>>;
  /** Completes every running `watch` and `errors$`. Claims held stay claimed until their handlers finish (or their lease runs out). Files are untouched. */
  dispose(): void;
}

type Issue = { readonly code: string; readonly path: readonly PropertyKey[]; readonly message: string };
type Read<T> = { ok: true; file: SignalFile<T> } | { ok: false; reason: SignalRejectionReason; detail: string; issues?: readonly Issue[] } | { ok: 'gone' };

const isErrno = (e: unknown, code: string): boolean => (e as NodeJS.ErrnoException)?.code === code;
const publishedAt = (name: SignalName): string => new Date(timeToMs(name.time)).toISOString();

class SignalDirectoryImpl<T, TInput> implements SignalDirectory<T, TInput> {
  readonly claimerId: string;
  readonly errors$: Observable<SignalFileRejectedError | SignalClaimLostError>;
  private readonly errors = new Subject<SignalFileRejectedError | SignalClaimLostError>();
  private readonly claimedDir: string;
  private readonly processedDir: string;
  private readonly rejectedDir: string;
  private readonly host = safeHost(hostname());
  private readonly publisher = randomHex();
  private readonly source: string;
  private readonly leaseMs: number;
  private readonly staleTempMs: number;
  private readonly scheduler: SchedulerLike;
  private readonly watches = new Set<() => void>();
  private claims = 0;

  constructor(
    readonly dir: string,
    readonly channel: SignalChannelDef<string, T, TInput>,
    options: Omit<SignalDirectoryOptions<SignalChannelDef<string, T, TInput>>, 'dir' | 'channel'>,
  ) {
    this.claimedDir = join(dir, 'claimed');
    this.processedDir = join(dir, 'processed');
    this.rejectedDir = join(dir, 'rejected');
    this.source = options.source ?? channel.name;
    this.leaseMs = options.leaseMs ?? 300_000;
    this.staleTempMs = options.staleTempMs ?? 60_000;
    this.scheduler = options.scheduler ?? asyncScheduler;
    if (!SAFE_WORD.test(this.source)) throw new InvalidSignalError(channel.name, `source ${JSON.stringify(this.source)} must be 1 to 64 letters, digits, ".", "_" or "-" (it starts every file name)`);
    for (const [key, value] of [['leaseMs', this.leaseMs], ['staleTempMs', this.staleTempMs]] as const) {
      if (!Number.isFinite(value) || value < 0) throw new InvalidSignalError(channel.name, `${key} must be a number of ms ≥ 0 (got ${String(value)})`);
    }
    this.claimerId = `${process.pid}~${this.host}~${this.publisher}`;
    this.errors$ = this.errors.asObservable();
    try {
      for (const d of [this.claimedDir, this.processedDir, this.rejectedDir]) mkdirSync(d, { recursive: true });
    } catch (e) {
      throw new SignalDirectoryError(dir, 'create', e);
    }
  }

  publish(signal: TInput, options: { readonly source?: string } = {}): SignalFile<T> {
    const source = options.source ?? this.source;
    if (typeof source !== 'string' || !SAFE_WORD.test(source)) {
      throw new InvalidSignalError(this.channel.name, `source ${JSON.stringify(source)} must be 1 to 64 letters, digits, ".", "_" or "-" (it starts the file name). Nothing was written.`);
    }
    const parsed = this.channel.schema.safeParse(signal);
    if (!parsed.success) {
      const issues = parsed.error.issues.map((i) => ({ code: i.code, path: i.path, message: i.message }));
      throw new InvalidSignalError(this.channel.name, `the signal does not match the channel's schema (${issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ')}). Nothing was written.`, issues);
    }
    const { ms, seq } = nextStamp();
    const file = formatSignalName(source, ms, seq, this.publisher);
    const path = join(this.dir, file);
    const name = parseSignalName(file) as SignalName;
    const text = JSON.stringify({ format: SIGNAL_FILE_FORMAT, channel: this.channel.name, source, publishedAt: publishedAt(name), signal: parsed.data });
    try {
      writeFileAtomic.sync(path, text, { fsync: true });
      fsyncDirectory(path);
    } catch (e) {
      throw new SignalDirectoryError(path, 'publish', e);
    }
    return { id: name.id, source, publishedAt: publishedAt(name), signal: parsed.data, path };
  }

  poll(): readonly SignalFile<T>[] {
    const out: SignalFile<T>[] = [];
    for (const name of this.pendingNames()) {
      const read = this.read(join(this.dir, `${name.id}.json`), name);
      if (read.ok === true) out.push(read.file);
      else if (read.ok === false) this.reject(join(this.dir, `${name.id}.json`), read.reason, read.detail, read.issues);
    }
    return out;
  }

  claim(signal: SignalFile<T> | string): ClaimedSignal<T> | undefined {
    const id = typeof signal === 'string' ? signal : signal.id;
    const name = parseSignalName(`${id}.json`);
    if (name === undefined) return undefined;
    const claimedAtMs = Date.now();
    const claimPath = join(this.claimedDir, formatClaimName({ id, claimedAtMs, pid: process.pid, host: this.host, token: `${this.publisher}-${++this.claims}` }));
    try {
      renameSync(join(this.dir, `${id}.json`), claimPath);
    } catch (e) {
      if (isErrno(e, 'ENOENT')) return undefined; // another claimer won the rename
      throw new SignalDirectoryError(join(this.dir, `${id}.json`), 'claim', e);
    }
    const read = this.read(claimPath, name);
    if (read.ok === true) return { ...read.file, claimedAtMs };
    if (read.ok === false) this.reject(claimPath, read.reason, read.detail, read.issues);
    return undefined;
  }

  claimNext(): ClaimedSignal<T> | undefined {
    for (const name of this.pendingNames()) {
      const claimed = this.claim(name.id);
      if (claimed !== undefined) return claimed;
    }
    return undefined;
  }

  archive(signal: SignalFile<T> | string): SignalFile<T> {
    const path = typeof signal === 'string' ? signal : signal.path;
    const file = basename(path);
    const id = file.includes('~') ? file.slice(0, file.indexOf('~')) : file.replace(/\.json$/, '');
    const name = parseSignalName(`${id}.json`);
    const target = join(this.processedDir, `${id}.json`);
    try {
      renameSync(path, target);
      fsyncDirectory(target);
    } catch (e) {
      if (isErrno(e, 'ENOENT')) throw new SignalClaimLostError(path, 'archive');
      throw new SignalDirectoryError(path, 'archive', e);
    }
    if (typeof signal !== 'string') return { id: signal.id, source: signal.source, publishedAt: signal.publishedAt, signal: signal.signal, path: target };
    const read = name === undefined ? undefined : this.read(target, name);
    if (read?.ok !== true) throw new SignalDirectoryError(target, 'read the archived signal', new Error('not a valid signal file'));
    return read.file;
  }

  release(signal: ClaimedSignal<T>): SignalFile<T> {
    const target = join(this.dir, `${signal.id}.json`);
    try {
      renameSync(signal.path, target);
    } catch (e) {
      if (isErrno(e, 'ENOENT')) throw new SignalClaimLostError(signal.path, 'release');
      throw new SignalDirectoryError(signal.path, 'release', e);
    }
    return { id: signal.id, source: signal.source, publishedAt: signal.publishedAt, signal: signal.signal, path: target };
  }

  renew(signal: ClaimedSignal<T>): void {
    const now = new Date(Date.now());
    try {
      utimesSync(signal.path, now, now);
    } catch (e) {
      if (isErrno(e, 'ENOENT')) throw new SignalClaimLostError(signal.path, 'renew');
      throw new SignalDirectoryError(signal.path, 'renew', e);
    }
  }

  watch(handler: SignalHandler<T>, options: WatchSignalsOptions = {}): Observable<SignalFile<T>> {
    const pollIntervalMs = options.pollIntervalMs ?? 1000;
    return new Observable<SignalFile<T>>((subscriber) => {
      let stopped = false;
      let running = false;
      let again = false;
      const abort = new AbortController();
      const drain = async (): Promise<void> => {
        if (running) {
          again = true;
          return;
        }
        running = true;
        try {
          do {
            again = false;
            for (let claimed = this.claimNext(); claimed !== undefined && !stopped; claimed = stopped ? undefined : this.claimNext()) {
              const held = claimed;
              const renewal: Subscription = interval(Math.max(1, this.leaseMs / 3), this.scheduler).subscribe(() => {
                try {
                  this.renew(held);
                } catch {
                  // Lost or failing: archive below reports it.
                }
              });
              try {
                await handler(held, { abortSignal: abort.signal });
              } catch (e) {
                renewal.unsubscribe();
                try {
                  this.release(held);
                } catch {
                  // Already returned by another poller: it is in the queue either way.
                }
                subscriber.error(new SignalHandlerError(held.id, e));
                return;
              } finally {
                renewal.unsubscribe();
              }
              // The handler finished: archive even after an unsubscribe, or its work would be done twice.
              let archived: SignalFile<T>;
              try {
                archived = this.archive(held);
              } catch (e) {
                if (e instanceof SignalClaimLostError) {
                  this.errors.next(e);
                  continue;
                }
                throw e;
              }
              subscriber.next(archived);
            }
          } while (again && !stopped);
        } catch (e) {
          subscriber.error(e);
        } finally {
          running = false;
        }
      };
      const ticks = timer(0, pollIntervalMs, this.scheduler).subscribe(() => void drain());
      let watcher: FSWatcher | undefined;
      if (options.fsWatch ?? true) {
        try {
          watcher = fsWatch(this.dir, () => void drain());
          watcher.on('error', () => watcher?.close());
        } catch {
          watcher = undefined; // the timer alone
        }
      }
      const stop = (): void => {
        stopped = true;
        abort.abort();
        ticks.unsubscribe();
        watcher?.close();
        this.watches.delete(complete);
      };
      const complete = (): void => {
        stop();
        subscriber.complete();
      };
      this.watches.add(complete);
      return stop;
    });
  }

  dispose(): void {
    for (const complete of [...this.watches]) complete();
    this.errors.complete();
  }

  /** The queue's signal names in order, after returning dead or expired claims and setting aside bad names and stale temp files. */
  private pendingNames(): SignalName[] {
    this.returnAbandonedClaims();
    const names: SignalName[] = [];
    for (const entry of this.list(this.dir)) {
      if (!entry.isFile() || entry.name.startsWith('.')) continue; // subdirectories; hidden files (.gitkeep, editors' swap files)
      const name = parseSignalName(entry.name);
      if (name !== undefined) {
        names.push(name);
        continue;
      }
      const path = join(this.dir, entry.name);
      if (isTempFile(entry.name)) {
        const age = this.ageMs(path);
        if (age !== undefined && age > this.staleTempMs) this.reject(path, 'partial', `a temp file ${Math.round(age)} ms old: its writer stopped before renaming it into place`);
      } else {
        this.reject(path, 'bad-name', 'not named <source>-<YYYYMMDDTHHMMSSmmmZ>-<seq>-<pid>-<random>.json (write signals with publish())');
      }
    }
    return names.sort(compareSignalNames);
  }

  /** A claim whose owner is a dead process on this host, or whose lease ran out, goes back to the queue. */
  private returnAbandonedClaims(): void {
    const now = Date.now();
    for (const entry of this.list(this.claimedDir)) {
      const claim = parseClaimName(entry.name);
      if (claim === undefined) continue; // not ours to judge: left where it is
      const path = join(this.claimedDir, entry.name);
      const dead = claim.host === this.host && claim.pid !== process.pid && isDeadProcess(claim.pid);
      let expired = false;
      if (!dead) {
        const age = this.ageMs(path, now);
        expired = age !== undefined && Math.min(age, now - claim.claimedAtMs) > this.leaseMs;
      }
      if (!dead && !expired) continue;
      try {
        renameSync(path, join(this.dir, `${claim.id}.json`));
      } catch (e) {
        if (!isErrno(e, 'ENOENT')) throw new SignalDirectoryError(path, 'return to the queue', e);
      }
    }
  }

  private read(path: string, name: SignalName): Read<T> {
    let text: string;
    try {
      text = readFileSync(path, 'utf8');
    } catch (e) {
      if (isErrno(e, 'ENOENT')) return { ok: 'gone' };
      throw new SignalDirectoryError(path, 'read', e);
    }
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch (e) {
      return { ok: false, reason: 'not-json', detail: (e as Error).message };
    }
    const envelope = json as { format?: unknown; channel?: unknown; signal?: unknown };
    if (envelope === null || typeof envelope !== 'object' || envelope.format !== SIGNAL_FILE_FORMAT || !('signal' in envelope)) {
      return { ok: false, reason: 'not-a-signal', detail: `JSON without the envelope { format: "${SIGNAL_FILE_FORMAT}", channel, source, publishedAt, signal }` };
    }
    if (envelope.channel !== this.channel.name) {
      return { ok: false, reason: 'wrong-channel', detail: `a signal of channel ${JSON.stringify(envelope.channel)} in the directory of channel "${this.channel.name}"` };
    }
    const parsed = this.channel.schema.safeParse(envelope.signal);
    if (!parsed.success) {
      const issues = parsed.error.issues.map((i) => ({ code: i.code, path: i.path, message: i.message }));
      return { ok: false, reason: 'schema', detail: issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; '), issues };
    }
    return { ok: true, file: { id: name.id, source: name.source, publishedAt: publishedAt(name), signal: parsed.data, path } };
  }

  /** Moves a bad file, unchanged, to rejected/ under a name of its own, writes why beside it, and reports it. */
  private reject(path: string, reason: SignalRejectionReason, detail: string, issues: readonly Issue[] = []): void {
    const rejectedPath = join(this.rejectedDir, `${basename(path)}~${randomHex()}`);
    try {
      renameSync(path, rejectedPath);
    } catch (e) {
      if (isErrno(e, 'ENOENT')) return; // another poller set it aside (and reported it)
      throw new SignalDirectoryError(path, 'set aside', e);
    }
    const error = new SignalFileRejectedError(path, reason, rejectedPath, detail, issues);
    try {
      writeFileAtomic.sync(`${rejectedPath}.reason.json`, JSON.stringify({ path, reason, detail, issues, rejectedAt: new Date().toISOString(), by: this.claimerId }, null, 2), { fsync: true });
      fsyncDirectory(rejectedPath);
    } catch {
      // The file itself is set aside; the note beside it is a courtesy.
    }
    this.errors.next(error);
  }

  private list(dir: string): import('node:fs').Dirent[] {
    try {
      return readdirSync(dir, { withFileTypes: true });
    } catch (e) {
      if (isErrno(e, 'ENOENT')) return [];
      throw new SignalDirectoryError(dir, 'list', e);
    }
  }

  private ageMs(path: string, now = Date.now()): number | undefined {
    try {
      return now - statSync(path).mtimeMs;
    } catch {
      return undefined;
    }
  }
}

/**
 * Opens a signal channel over a directory shared by processes: the "completion signal" files of
 * the agent-coordination pattern, typed and safe with several pollers. Node only; synchronous
 * except `watch`.
 *
 * - `publish(signal, { source? })` validates with the channel's schema ({@link InvalidSignalError}
 *   and nothing written) and writes one file atomically (temp file, fsync, rename, directory
 *   fsync): `<dir>/<source>-<YYYYMMDDTHHMMSSmmmZ>-<seq>-<pid>-<random>.json`, holding
 *   `{ format: "rxslice.signal/1", channel, source, publishedAt, signal }`.
 * - `poll()` returns the pending signals (neither claimed, archived nor rejected), in order,
 *   each validated. Order: by the name's UTC time (ms), then the publisher's sequence, pid and
 *   random part: total, and stable across polls. One process's signals keep its publish order
 *   (its stamps never go back, and its sequence is process-wide); signals of several processes
 *   follow their clocks.
 * - `claim(signal | id)` takes one by renaming it into `claimed/<id>~<claimedAtMs>~<pid>~<host>~<token>.json`;
 *   rename is atomic, so of two claimers exactly one wins, the other gets `undefined`.
 *   `claimNext()` claims the first pending signal it can.
 * - `archive(signal | path)` moves a claimed (or, as the pattern's `archive_signal(path)` does, a
 *   pending) signal to `processed/<id>.json`; {@link SignalClaimLostError} if it was gone.
 *   `release(claimed)` puts it back in the queue, in its place; `renew(claimed)` extends its lease.
 * - `watch(handler)` is the loop of an orchestrator: a cold observable that claims signals in
 *   order, awaits `handler` for each (one at a time), archives it and emits it (archived).
 *
 * **Abandoned claims.** Every poll (`poll`, `claimNext`, `watch`) first returns to the queue the
 * claims whose owner is a dead process on this host (`kill(pid, 0)` fails with ESRCH), and the
 * claims of any host not renewed for `leaseMs` (from the claim time or the last `renew`). So a
 * process killed mid-handling leaves its signal to be taken again at once on the same host, and
 * after `leaseMs` from another host. A live claimer that holds a claim past `leaseMs` without
 * renewing may see it handled twice (`watch` renews while its handler runs). A dead claimer's
 * pid reused by another process counts as alive: the lease still returns that claim.
 *
 * **Bad files** (not JSON, not a signal envelope, another channel, failing the schema, a `.json`
 * not named as a signal, a temp file older than `staleTempMs`) are moved unchanged into
 * `rejected/<name>~<random>` with `<...>.reason.json` beside it, and reported on `errors$` as
 * {@link SignalFileRejectedError}; they never end a poll. Hidden files are left alone, and so are
 * younger temp files (a write in progress).
 *
 * @remarks Exactly once per signal for claimers that finish within their lease; at least once
 * otherwise (a claim returned after a crash or a lapsed lease). A local file system: `rename` must
 * be atomic (NFS renames are not reliably so).
 * @param options.dir - The directory; it and its subdirectories are created if missing.
 * @param options.channel - From {@link defineSignalChannel}.
 * @throws {@link InvalidSignalError} for a bad `source`, `leaseMs` or `staleTempMs`;
 * {@link SignalDirectoryError} when the directory cannot be created. Every operation throws
 * {@link SignalDirectoryError} when the file system fails.
 * @example
 * ```ts
 * const Completion = defineSignalChannel('completion', z.object({ status: z.string(), nextState: z.string() }));
 * const signals = createSignalDirectory({ dir: '.agent-signals', channel: Completion, source: 'planner' });
 * signals.publish({ status: 'completed', nextState: 'review' });
 * signals.watch(async (s) => console.log(s.source, s.signal.nextState)).subscribe(); // Logs: planner review
 * ```
 */
export function createSignalDirectory<TChannel extends SignalChannelDef<string, any, any>>(options: SignalDirectoryOptions<TChannel>): SignalDirectory<TChannel['Signal'], TChannel['Input']> {
  const { dir, channel, ...rest } = options;
  if (typeof dir !== 'string' || dir === '') throw new InvalidSignalError(channel?.name ?? '?', 'createSignalDirectory needs { dir: <path> }');
  if (channel === null || typeof channel !== 'object' || typeof channel.schema?.safeParse !== 'function') {
    throw new InvalidSignalError(String(dir), 'createSignalDirectory needs { channel: defineSignalChannel(name, schema) }');
  }
  return new SignalDirectoryImpl<TChannel['Signal'], TChannel['Input']>(dir, channel as SignalChannelDef<string, TChannel['Signal'], TChannel['Input']>, rest);
}

/** @internal The directory that holds a signal file: its queue folder, also for a path under claimed/ or processed/. */
export function signalQueueDir(path: string): string {
  const parent = dirname(path);
  const last = basename(parent);
  return last === 'claimed' || last === 'processed' ? dirname(parent) : parent;
}
