import { existsSync, statSync } from 'node:fs';
import type { CheckpointRecord } from '../state/checkpointer';
import { checkpointFiles } from '../jsonl/checkpoint-files';
import { quote } from '../internal/quote';

/** A directory or thread `rxslice history` cannot list (printed on stderr, exit code 1). */
export class HistoryError extends Error {
  override readonly name = 'HistoryError';
}

/** One checkpoint as `rxslice history` lists it. */
export interface HistoryRow {
  readonly id: string;
  /** The parent checkpoint's id; `null` for the thread's first. */
  readonly parent: string | null;
  /** `metadata.step`: the step number within the thread, from 0. */
  readonly step: number;
  /** `metadata.source`: `input`, `loop`, `update` or `fork`. */
  readonly source: string;
  /** `metadata.asNode`: the node (writer) of an `updateState`; `null` when none was given. */
  readonly node: string | null;
  /** `createdAt` as an ISO-8601 UTC string (the record's ms since the epoch). */
  readonly time: string;
  /**
   * The fields the checkpoint changed, sorted: for a delta record the fields its updates name;
   * for a full record (a thread's first, a fork, a periodic full value) the fields whose value
   * differs (as JSON) from the parent's full value, or every field when the parent is not a
   * full record or there is none.
   */
  readonly changed: readonly string[];
  /** True for a full record (`values`), false for a delta (`updates`). */
  readonly full: boolean;
}

/** What `rxslice history` prints (as text, or as JSON with `--json`). */
export interface ThreadHistory {
  readonly dir: string;
  readonly thread: string;
  /** Oldest first, in the order the thread file holds them. */
  readonly checkpoints: readonly HistoryRow[];
}

const sorted = (keys: Iterable<string>): string[] => [...new Set(keys)].sort();

function changedFields(record: CheckpointRecord, parent: CheckpointRecord | undefined): string[] {
  if (record.values === undefined) return sorted((record.updates ?? []).flatMap((u) => Object.keys(u)));
  const values = record.values;
  const before = parent?.values;
  if (before === undefined) return sorted(Object.keys(values));
  return sorted([...Object.keys(values), ...Object.keys(before)].filter((k) => JSON.stringify(values[k]) !== JSON.stringify(before[k])));
}

/**
 * Lists the checkpoints of thread `thread` stored by `checkpointFiles(dir)` (a checkpointer's
 * JSONL thread files, `rxslice/storage/jsonl`): id, parent, step, source, node, time and the
 * fields each changed, oldest first. Reads only; never creates `dir`.
 *
 * @throws {@link HistoryError} when `dir` is not a directory, or holds no checkpoint of `thread`
 * (the message lists the threads it holds); `CheckpointError` (`CHECKPOINT_CORRUPT`) when a
 * thread file fails its CRC32 check.
 * @example
 * ```ts
 * threadHistory('.checkpoints', 'chat-1').checkpoints.map((c) => [c.step, c.changed]);
 * // [[0, ['messages', 'phase']], [1, ['messages']], [2, ['phase']]]  (the first record is full: every field)
 * ```
 */
export function threadHistory(dir: string, thread: string): ThreadHistory {
  if (!existsSync(dir) || !statSync(dir).isDirectory()) throw new HistoryError(`${quote(dir)} is not a directory of checkpoint files (checkpointFiles(dir) writes them)`);
  const storage = checkpointFiles<CheckpointRecord>(dir, { fsync: false });
  const records = storage.read(thread);
  if (records.length === 0) {
    const threads = storage.threads();
    throw new HistoryError(
      `${quote(dir)} holds no checkpoint of thread ${quote(thread)}; ` +
        (threads.length === 0 ? 'it holds no thread at all' : `its threads: ${threads.slice(0, 20).map((t) => `${quote(t)}`).join(', ')}${threads.length > 20 ? `, … (${threads.length})` : ''}`),
    );
  }
  const byId = new Map(records.map((r) => [r.id, r]));
  return {
    dir,
    thread,
    checkpoints: records.map((r) => ({
      id: r.id,
      parent: r.parentId,
      step: r.metadata.step,
      source: r.metadata.source,
      node: typeof r.metadata.asNode === 'string' ? r.metadata.asNode : null,
      time: new Date(r.createdAt).toISOString(),
      changed: changedFields(r, r.parentId === null ? undefined : byId.get(r.parentId)),
      full: r.values !== undefined,
    })),
  };
}

/** The history as an aligned table, one checkpoint per line (no trailing newline). */
export function formatHistory(history: ThreadHistory): string {
  const head = ['id', 'parent', 'step', 'source', 'node', 'time', 'changed'];
  const rows = history.checkpoints.map((c) => [c.id, c.parent ?? '-', String(c.step), c.source, c.node ?? '-', c.time, `${c.changed.join(', ') || '-'}${c.full ? ' (full)' : ''}`]);
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] as string).length)));
  const line = (cells: readonly string[]) => cells.map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i] as number))).join('  ').trimEnd();
  const n = history.checkpoints.length;
  return [`thread "${history.thread}" in ${history.dir}: ${n} ${n === 1 ? 'checkpoint' : 'checkpoints'}, oldest first`, line(head), ...rows.map(line)].join('\n');
}
