import { mkdirSync, readdirSync, readFileSync, renameSync, statSync, utimesSync, watch as fsWatch, type FSWatcher } from 'node:fs';
import { hostname } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { asyncScheduler, interval, Observable, Subject, timer, type SchedulerLike, type Subscription } from 'rxjs';
import writeFileAtomic from 'write-file-atomic';
import { InvalidSignalError, SAFE_WORD, type SignalChannelDef } from './signal-channel';
import { SignalClaimLostError, SignalDirectoryError, SignalFileRejectedError, SignalHandlerError, type SignalRejectionReason } from './signal-errors';
import { compareSignalNames, formatClaimName, nextStamp, formatSignalName, isDeadProcess, isTempFile, parseClaimName, parseSignalName, randomHex, safeHost, timeToMs, type SignalName } from './signal-names';
import { fsyncDirectory } from './snapshot-file';
import { SIGNAL_FILE_FORMAT, type ClaimedSignal, type SignalDirectory, type SignalDirectoryOptions, type SignalFile, type SignalHandler, type WatchSignalsOptions } from './signal-directory-types';


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
