import type { CommitListener } from './internals';
import type { SessionRegistry } from './session-registry';

/**
 * The whole session as one read for external-store bindings (`session.getSnapshot()`): each
 * registered slice's name mapped to the same read-only array its handle's `all()` returns.
 * Frozen; the same object until a slice's version changes or a slice is added.
 */
export type SessionItems = { readonly [slice: string]: readonly unknown[] };

/**
 * @internal The lazily built whole-session read behind `session.getSnapshot()`. Nothing runs on
 * the dispatch path: a read compares each slice's version with the one the cached object was
 * built from (O(number of slices), no allocation) and rebuilds only when one differs or a slice
 * was added; a rebuild reuses every slice's `all()` array (O(number of slices), items never copied).
 */
export class SessionItemsReader {
  private cached: SessionItems | undefined = undefined;
  private readonly versions: number[] = [];

  constructor(private readonly registry: SessionRegistry) {}

  read(): SessionItems {
    const records = this.registry.records;
    const cached = this.cached;
    if (cached !== undefined && records.size === this.versions.length) {
      const versions = this.versions;
      let i = 0;
      let same = true;
      for (const record of records.values()) {
        if (record.storage.version !== versions[i++]) {
          same = false;
          break;
        }
      }
      if (same) return cached;
    }
    const out: Record<string, readonly unknown[]> = {};
    const versions = this.versions;
    versions.length = 0;
    for (const [name, record] of records) {
      // The version before all(): a storage that bumps it while reading rebuilds next time.
      versions.push(record.storage.version);
      out[name] = record.storage.all(); // names are safe keys (defineSlice refuses "__proto__")
    }
    const next = Object.freeze(out);
    this.cached = next;
    return next;
  }
}

/**
 * @internal The listeners of `session.subscribe`: one commit listener on the session while any is
 * subscribed (none otherwise, so commits pay nothing for it), calling a copy-on-write list so that
 * a listener unsubscribing another (or itself) while they are called skips nobody.
 */
export class SessionListeners {
  private listeners: readonly (() => void)[] = [];
  private stop: (() => void) | undefined = undefined;

  constructor(
    private readonly addCommitListener: (listener: CommitListener) => () => void,
    private readonly report: (error: unknown) => void,
    private readonly disposed: () => boolean,
  ) {}

  add(listener: () => void): () => void {
    // Wrapped: the same function subscribed twice is two subscriptions, each removed by its own call.
    const entry = (): void => listener();
    this.listeners = [...this.listeners, entry];
    if (this.stop === undefined) this.stop = this.addCommitListener({ onCommit: () => this.notify() });
    let active = true;
    return () => {
      if (!active) return;
      active = false;
      this.listeners = this.listeners.filter((l) => l !== entry);
      // Not while the session iterates its commit listeners (removing one there would skip the next).
      if (this.notifying === 0) this.release();
    };
  }

  /** Leaves the session's commit listeners when nobody is subscribed. */
  private release(): void {
    if (this.listeners.length === 0 && this.stop !== undefined) {
      this.stop();
      this.stop = undefined;
    }
  }

  /** Depth of `notify` calls under way (a listener's dispatch may publish inside one). */
  private notifying = 0;

  private notify(): void {
    const listeners = this.listeners;
    this.notifying++;
    try {
      this.callEach(listeners);
    } finally {
      // An entry emptied meanwhile stays registered (an idle call per commit) until a later
      // subscribe reuses it or an unsubscribe outside a commit releases it.
      this.notifying--;
    }
  }

  private callEach(listeners: readonly (() => void)[]): void {
    for (let i = 0; i < listeners.length; i++) {
      const listener = listeners[i] as () => void;
      // Removed by an earlier listener of this round, or the session was disposed meanwhile.
      if (this.disposed() || !this.listeners.includes(listener)) continue;
      try {
        listener();
      } catch (error) {
        this.report(error);
      }
    }
  }
}
