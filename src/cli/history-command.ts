import { existsSync, statSync } from 'node:fs';
import type { CheckpointRecord } from '../state/checkpoint-storage';
import { checkpointFiles } from '../jsonl/checkpoint-files';
import type { LangGraphBlob, LangGraphRecord } from '../langgraph/rxslice-saver';
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
  /** True for a full record (`values`), false for a delta (`updates`; every checkpoint of the LangGraph saver). */
  readonly full: boolean;
  /** The LangGraph checkpoint namespace (`''`: the graph itself, else a subgraph); `null` for a checkpointer's record. */
  readonly ns: string | null;
}

/** Who wrote a thread: `createCheckpointer` (`checkpointFiles(dir)`) or the LangGraph `RxSliceSaver`. */
export type HistoryWriter = 'checkpointer' | 'langgraph';

/** What `rxslice history` prints (as text, or as JSON with `--json`). */
export interface ThreadHistory {
  readonly dir: string;
  readonly thread: string;
  readonly writer: HistoryWriter;
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

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** A record `createCheckpointer` wrote (the fields `rxslice history` reads). */
const isCheckpointerRecord = (r: unknown): r is CheckpointRecord =>
  isObject(r) && typeof r['id'] === 'string' && typeof r['createdAt'] === 'number' && isObject(r['metadata']) && typeof r['metadata']['step'] === 'number';

/** A record the LangGraph `RxSliceSaver` wrote: a checkpoint or a pending write. */
const isSaverRecord = (r: unknown): r is LangGraphRecord => isObject(r) && (r['kind'] === 'checkpoint' || r['kind'] === 'write') && typeof r['ns'] === 'string';

/** LangGraph's own channels (`__start__`, `branch:to:agent`, ...): not fields of the graph's state. */
const isInternalChannel = (channel: string): boolean => channel.startsWith('__') || channel.startsWith('branch:');

/** A value the saver's serde wrote, read without LangGraph: the default `JsonPlusSerializer` writes `["json", base64 of the JSON]`. */
function decodeBlob(blob: LangGraphBlob, what: string, where: string): Record<string, unknown> {
  const [type, base64] = blob;
  if (type !== 'json') throw new HistoryError(`${where}: the ${what} was serialised as ${quote(type)}; rxslice history reads the JSON of LangGraph's default serializer (JsonPlusSerializer) only`);
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(base64, 'base64').toString('utf8'));
  } catch {
    throw new HistoryError(`${where}: the ${what} is not JSON`);
  }
  if (!isObject(value)) throw new HistoryError(`${where}: the ${what} is not a JSON object`);
  return value;
}

function checkpointerRows(records: readonly CheckpointRecord[]): HistoryRow[] {
  const byId = new Map(records.map((r) => [r.id, r]));
  return records.map((r) => ({
    id: r.id,
    parent: r.parentId,
    step: r.metadata.step,
    source: r.metadata.source,
    node: typeof r.metadata.asNode === 'string' ? r.metadata.asNode : null,
    time: new Date(r.createdAt).toISOString(),
    changed: changedFields(r, r.parentId === null ? undefined : byId.get(r.parentId)),
    full: r.values !== undefined,
    ns: null,
  }));
}

/** The checkpoints of a saver thread (its pending writes left out), in the order they were put. */
function saverRows(records: readonly LangGraphRecord[], where: string): HistoryRow[] {
  const rows: HistoryRow[] = [];
  for (const r of records) {
    if (r.kind !== 'checkpoint') continue;
    const at = `${where}, checkpoint ${r.id}`;
    const checkpoint = decodeBlob(r.checkpoint, 'checkpoint', at);
    const metadata = decodeBlob(r.metadata, 'metadata', at);
    const ts = typeof checkpoint['ts'] === 'string' ? Date.parse(checkpoint['ts']) : NaN;
    const writes = metadata['writes'];
    const nodes = isObject(writes) ? Object.keys(writes) : [];
    rows.push({
      id: r.id,
      parent: r.parentId ?? null,
      step: typeof metadata['step'] === 'number' ? metadata['step'] : NaN,
      source: typeof metadata['source'] === 'string' ? metadata['source'] : '-',
      node: nodes.length > 0 ? nodes.join(', ') : null,
      time: Number.isNaN(ts) ? '-' : new Date(ts).toISOString(),
      changed: sorted(Object.keys(r.blobs ?? {}).filter((channel) => !isInternalChannel(channel))),
      full: false,
      ns: r.ns,
    });
  }
  return rows;
}

/**
 * Lists the checkpoints of thread `thread` in `dir`, a directory of thread files written by
 * `checkpointFiles(dir)` (`rxslice/storage/jsonl`), for `createCheckpointer` or for the LangGraph
 * `RxSliceSaver` (`rxslice/langgraph`): id, parent, step, source, node, time and the fields each
 * changed, oldest first. Reads only; never creates `dir`; needs no LangGraph package.
 *
 * @remarks For a saver thread: `step` and `source` are LangGraph's metadata, `node` the nodes of
 * `metadata.writes` (when the metadata has them), `time` the checkpoint's `ts`, `changed` the
 * state channels whose new versions the checkpoint stored (LangGraph's own channels, `__*` and
 * `branch:*`, left out), `ns` the checkpoint namespace (a subgraph's are listed too); pending
 * writes are not checkpoints and are not listed. Values must have been written by LangGraph's
 * default serializer (JSON).
 * @throws {@link HistoryError} when `dir` is not a directory, holds no checkpoint of `thread`
 * (the message lists the threads it holds), or a thread file holds records neither writer makes;
 * `CheckpointError` (`CHECKPOINT_CORRUPT`) when a thread file fails its CRC32 check.
 * @example
 * ```ts
 * threadHistory('.checkpoints', 'chat-1').checkpoints.map((c) => [c.step, c.changed]);
 * // [[0, ['messages', 'phase']], [1, ['messages']], [2, ['phase']]]  (the first record is full: every field)
 * ```
 */
export function threadHistory(dir: string, thread: string): ThreadHistory {
  if (!existsSync(dir) || !statSync(dir).isDirectory()) throw new HistoryError(`${quote(dir)} is not a directory of checkpoint files (checkpointFiles(dir) writes them)`);
  const storage = checkpointFiles<{ readonly threadId: string }>(dir, { fsync: false });
  const records: readonly unknown[] = storage.read(thread);
  if (records.length === 0) {
    const threads = storage.threads();
    throw new HistoryError(
      `${quote(dir)} holds no checkpoint of thread ${quote(thread)}; ` +
        (threads.length === 0 ? 'it holds no thread at all' : `its threads: ${threads.slice(0, 20).map((t) => `${quote(t)}`).join(', ')}${threads.length > 20 ? `, … (${threads.length})` : ''}`),
    );
  }
  const where = `"${dir}", thread "${thread}"`;
  if (records.every(isCheckpointerRecord)) return { dir, thread, writer: 'checkpointer', checkpoints: checkpointerRows(records) };
  if (records.every(isSaverRecord)) return { dir, thread, writer: 'langgraph', checkpoints: saverRows(records, where) };
  const line = records.findIndex((r) => !isCheckpointerRecord(r) && !isSaverRecord(r));
  throw new HistoryError(
    `${where}: ${line < 0 ? 'records of both createCheckpointer and the LangGraph RxSliceSaver are mixed in one thread file' : `record ${line + 1} is neither a createCheckpointer checkpoint nor a LangGraph RxSliceSaver record`}; nothing was listed`,
  );
}

/** The history as an aligned table, one checkpoint per line (no trailing newline). */
export function formatHistory(history: ThreadHistory): string {
  const namespaced = history.checkpoints.some((c) => c.ns !== null && c.ns !== '');
  const head = ['id', 'parent', 'step', 'source', 'node', 'time', 'changed', ...(namespaced ? ['namespace'] : [])];
  const rows = history.checkpoints.map((c) => [
    c.id,
    c.parent ?? '-',
    String(c.step),
    c.source,
    c.node ?? '-',
    c.time,
    `${c.changed.join(', ') || '-'}${c.full ? ' (full)' : ''}`,
    ...(namespaced ? [c.ns || '-'] : []),
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] as string).length)));
  const line = (cells: readonly string[]) => cells.map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i] as number))).join('  ').trimEnd();
  const n = history.checkpoints.length;
  const by = history.writer === 'langgraph' ? ' (LangGraph RxSliceSaver)' : '';
  return [`thread "${history.thread}" in ${history.dir}${by}: ${n} ${n === 1 ? 'checkpoint' : 'checkpoints'}, oldest first`, line(head), ...rows.map(line)].join('\n');
}
