import type { JsonlRecovery, JsonlRecoveryMode } from './journal-recovery';

/**
 * When the journal is flushed to stable storage (fsync), after SQLite's `synchronous` levels:
 *
 * - `'always'` (SQLite FULL): every record is fdatasync'ed before its event becomes visible.
 *   A power loss loses no committed event. Slowest.
 * - `'batch'` (SQLite NORMAL, default): records are written at once (a killed process loses
 *   nothing: the OS holds them) and fdatasync'ed at most `batchMs` later, in the background. A
 *   power loss or OS crash can lose the events of the last `batchMs`; reopening truncates the
 *   torn tail and yields an earlier committed prefix.
 * - `'never'` (SQLite OFF): the OS decides when to write. A killed process still loses
 *   nothing; a power loss can lose any number of recent events, and on some file systems leave
 *   damage before the tail (then `recovery: 'point-in-time'` keeps the good prefix).
 */
export type JsonlFsync = 'always' | 'batch' | 'never';

/** Options of {@link jsonl}. */
export interface JsonlOptions {
  /** The directory (created if missing). One journal for every slice made by this factory. */
  readonly dir: string;
  /** Default `'batch'`. See {@link JsonlFsync}. */
  readonly fsync?: JsonlFsync;
  /** Default `'tolerate-torn-tail'`. See {@link JsonlRecoveryMode}. */
  readonly recovery?: JsonlRecoveryMode;
  /** With `fsync: 'batch'`: the longest time (ms) a written record waits for its fdatasync. Default 200. */
  readonly batchMs?: number;
  /** ms after which a lock not refreshed by its holder is stale and taken over (proper-lockfile; ≥ 2000). Default 10 000. */
  readonly stale?: number;
  /**
   * Compact (rewrite the live state as a base file, start an empty journal) when the journal
   * exceeds this many bytes and twice the last base file. Default 8 MiB.
   */
  readonly compactBytes?: number;
  /** Deep-freeze recovered items and freeze the arrays handed out. Default `true`. */
  readonly freeze?: boolean;
  /** Told what each open recovered (also kept as `factory.recovery`). */
  readonly onRecovery?: (recovery: JsonlRecovery) => void;
}
