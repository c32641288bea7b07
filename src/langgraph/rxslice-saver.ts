import {
  BaseCheckpointSaver,
  copyCheckpoint,
  getCheckpointId,
  maxChannelVersion,
  TASKS,
  WRITES_IDX_MAP,
  compareWritesSortKeys,
  writesSortKey,
  type ChannelVersions,
  type Checkpoint,
  type CheckpointListOptions,
  type CheckpointMetadata,
  type CheckpointPendingWrite,
  type CheckpointTuple,
  type PendingWrite,
  type SerializerProtocol,
} from '@langchain/langgraph-checkpoint';
import type { RunnableConfig } from '@langchain/core/runnables';
import { RxSliceError } from '../internal/errors';
import { memoryCheckpoints, type ThreadRecordStorage } from '../state/checkpoint-storage';
import { clip } from '../internal/quote';

/**
 * A value serialised by the saver's serde, kept JSON-safe: `[type, base64]`, the serde's type
 * tag (e.g. `"json"`) and the serialised bytes in base64. Read back with the same serde.
 */
export type LangGraphBlob = readonly [type: string, base64: string];

/** One stored record of a thread: a checkpoint, or one pending write of a task. JSON data. */
export type LangGraphRecord =
  | {
      readonly kind: 'checkpoint';
      readonly threadId: string;
      readonly ns: string;
      readonly id: string;
      readonly parentId: string | undefined;
      /** The checkpoint without its channel values. */
      readonly checkpoint: LangGraphBlob;
      readonly metadata: LangGraphBlob;
      /** The values of the channels this checkpoint changed (`newVersions`), by channel: version and value (`null`: no value). */
      readonly blobs: Readonly<Record<string, { readonly version: string | number; readonly value: LangGraphBlob | null }>>;
    }
  | {
      readonly kind: 'write';
      readonly threadId: string;
      readonly ns: string;
      readonly checkpointId: string;
      readonly taskId: string;
      readonly idx: number;
      readonly channel: string;
      readonly value: LangGraphBlob;
      readonly taskPath: string;
    };

/** Thrown for a config without the ids a call needs, or an unsafe id. */
export class RxSliceSaverError extends RxSliceError {
  override readonly name = 'RxSliceSaverError';
  constructor(message: string) {
    super('INVALID_CHECKPOINT_CONFIG', message);
  }
}

interface StoredCheckpoint {
  readonly checkpoint: LangGraphBlob;
  readonly metadata: LangGraphBlob;
  readonly parentId: string | undefined;
}
interface StoredWrite {
  readonly taskId: string;
  readonly idx: number;
  readonly channel: string;
  readonly value: LangGraphBlob;
  readonly taskPath: string;
}
/** A thread folded from its records: checkpoints and writes by namespace and checkpoint id, channel values by namespace, channel and version. */
interface ThreadIndex {
  readonly checkpoints: Map<string, Map<string, StoredCheckpoint>>;
  readonly writes: Map<string, Map<string, StoredWrite>>;
  readonly blobs: Map<string, LangGraphBlob | null>;
}
const blobKey = (ns: string, channel: string, version: unknown): string => JSON.stringify([ns, channel, version]);

const RESERVED = new Set(['__proto__', 'constructor', 'prototype']);
function checkKey(field: string, value: unknown, allowEmpty = false): string {
  if (typeof value !== 'string' || (!allowEmpty && value === '') || RESERVED.has(value)) {
    throw new RxSliceSaverError(`configurable.${field} must be a ${allowEmpty ? '' : 'non-empty '}string id (got ${clip(JSON.stringify(value))})`);
  }
  return value;
}
const writesKey = (ns: string, checkpointId: string): string => JSON.stringify([ns, checkpointId]);
// base64 without Buffer, so the saver also runs where LangGraph.js runs in a browser.
function toBase64(bytes: Uint8Array): string {
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}
function fromBase64(base64: string): Uint8Array {
  const binary = atob(base64);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}
const toBlob = ([type, bytes]: [string, Uint8Array]): LangGraphBlob => [type, toBase64(bytes)];
const fromBlob = ([, base64]: LangGraphBlob): Uint8Array => fromBase64(base64);

/**
 * A LangGraph.js checkpointer (`BaseCheckpointSaver`) on rxslice storage: give it to
 * `graph.compile({ checkpointer: new RxSliceSaver() })`. Checkpoints and pending writes are
 * records appended to a {@link ThreadRecordStorage}: `memoryCheckpoints()` (default) or
 * `checkpointFiles(dir)` from `rxslice/storage/jsonl` (CRC32-framed JSONL, one file per thread,
 * fdatasync per record, so a killed process keeps every acknowledged checkpoint).
 *
 * @remarks Follows LangGraph's checkpointer contract as its conformance suite
 * (`@langchain/langgraph-checkpoint-validation`) tests it: `getTuple`, `list` (newest first,
 * `before`, `limit`, metadata `filter`), `put`, `putWrites` (a task's write at index `i` is kept
 * once; special channels such as errors and interrupts are replaced), `deleteThread`, and the
 * pending sends of version < 4 checkpoints. Ids that would reach `Object.prototype` are refused.
 * Values go through the saver's serde (`JsonPlusSerializer` by default) and are stored as base64.
 * Storage is by delta, as LangGraph's PostgreSQL saver does: a checkpoint stores only the
 * channel values its `newVersions` name, once per channel version, so a long thread does not
 * store its whole state at every step.
 * @example
 * ```ts
 * const saver = new RxSliceSaver({ storage: checkpointFiles('.agent/langgraph') });
 * const graph = workflow.compile({ checkpointer: saver });
 * for await (const s of graph.getStateHistory({ configurable: { thread_id: 't1' } })) console.log(s.values);
 * ```
 */
export class RxSliceSaver extends BaseCheckpointSaver {
  private readonly storage: ThreadRecordStorage<LangGraphRecord>;
  private readonly index = new Map<string, ThreadIndex>();

  constructor(options: { readonly storage?: ThreadRecordStorage<LangGraphRecord>; readonly serde?: SerializerProtocol } = {}) {
    super(options.serde);
    this.storage = options.storage ?? memoryCheckpoints<LangGraphRecord>();
  }

  /** The folded records of a thread (read from storage once per saver, then kept up to date). */
  private thread(threadId: string): ThreadIndex {
    let index = this.index.get(threadId);
    if (index !== undefined) return index;
    index = { checkpoints: new Map(), writes: new Map(), blobs: new Map() };
    for (const r of this.storage.read(threadId)) this.fold(index, r);
    this.index.set(threadId, index);
    return index;
  }

  private fold(index: ThreadIndex, r: LangGraphRecord): void {
    if (r.kind === 'checkpoint') {
      let byId = index.checkpoints.get(r.ns);
      if (byId === undefined) index.checkpoints.set(r.ns, (byId = new Map()));
      byId.set(r.id, { checkpoint: r.checkpoint, metadata: r.metadata, parentId: r.parentId });
      for (const [channel, { version, value }] of Object.entries(r.blobs ?? {})) index.blobs.set(blobKey(r.ns, channel, version), value);
    } else {
      const key = writesKey(r.ns, r.checkpointId);
      let writes = index.writes.get(key);
      if (writes === undefined) index.writes.set(key, (writes = new Map()));
      writes.set(`${r.taskId},${r.idx}`, { taskId: r.taskId, idx: r.idx, channel: r.channel, value: r.value, taskPath: r.taskPath });
    }
  }

  private append(record: LangGraphRecord): void {
    this.storage.append(record);
    this.fold(this.thread(record.threadId), record);
  }

  /** A checkpoint's pending writes in LangGraph's canonical order (task path, task id, index). */
  private async pendingWrites(index: ThreadIndex, ns: string, checkpointId: string): Promise<CheckpointPendingWrite[]> {
    const stored = [...(index.writes.get(writesKey(ns, checkpointId))?.values() ?? [])];
    const keyed = stored.map((w) => ({ key: writesSortKey(w.taskPath, w.taskId, w.idx), w }));
    keyed.sort((a, b) => compareWritesSortKeys(a.key, b.key));
    return Promise.all(keyed.map(async ({ w }) => [w.taskId, w.channel, await this.serde.loadsTyped(w.value[0], fromBlob(w.value))] as CheckpointPendingWrite));
  }

  private async tuple(threadId: string, ns: string, checkpointId: string, stored: StoredCheckpoint, config?: RunnableConfig): Promise<CheckpointTuple> {
    const index = this.thread(threadId);
    const checkpoint = (await this.serde.loadsTyped(stored.checkpoint[0], fromBlob(stored.checkpoint))) as Checkpoint;
    // Channel values are stored once per version (by the checkpoint that changed them).
    const values: Record<string, unknown> = {};
    for (const [channel, version] of Object.entries(checkpoint.channel_versions ?? {})) {
      const blob = index.blobs.get(blobKey(ns, channel, version));
      if (blob !== undefined && blob !== null) values[channel] = await this.serde.loadsTyped(blob[0], fromBlob(blob));
    }
    checkpoint.channel_values = values;
    if (checkpoint.v < 4 && stored.parentId !== undefined) {
      // Checkpoints before version 4 kept pending sends as writes of their parent.
      const sends = [...(index.writes.get(writesKey(ns, stored.parentId))?.values() ?? [])].filter((w) => w.channel === TASKS);
      const values = await Promise.all(sends.map((w) => this.serde.loadsTyped(w.value[0], fromBlob(w.value))));
      checkpoint.channel_values ??= {};
      checkpoint.channel_values[TASKS] = values;
      checkpoint.channel_versions ??= {};
      const versions = Object.values(checkpoint.channel_versions);
      checkpoint.channel_versions[TASKS] = versions.length > 0 ? maxChannelVersion(...versions) : this.getNextVersion(undefined);
    }
    const result: CheckpointTuple = {
      config: config ?? { configurable: { thread_id: threadId, checkpoint_ns: ns, checkpoint_id: checkpointId } },
      checkpoint,
      metadata: (await this.serde.loadsTyped(stored.metadata[0], fromBlob(stored.metadata))) as CheckpointMetadata,
      pendingWrites: await this.pendingWrites(index, ns, checkpointId),
    };
    if (stored.parentId !== undefined) result.parentConfig = { configurable: { thread_id: threadId, checkpoint_ns: ns, checkpoint_id: stored.parentId } };
    return result;
  }

  /**
   * The checkpoint `config.configurable.checkpoint_id` names (the newest of the thread and namespace
   * when it names none) with its pending writes, or `undefined` when there is none or no `thread_id`.
   * @throws `RxSliceSaverError` when an id would reach `Object.prototype`.
   * @example
   * ```ts
   * const tuple = await saver.getTuple({ configurable: { thread_id: 't1' } }); // the latest checkpoint
   * ```
   */
  override async getTuple(config: RunnableConfig): Promise<CheckpointTuple | undefined> {
    if (config.configurable?.['thread_id'] === undefined) return undefined;
    const threadId = checkKey('thread_id', config.configurable['thread_id']);
    const ns = checkKey('checkpoint_ns', config.configurable?.['checkpoint_ns'] ?? '', true);
    const wanted = getCheckpointId(config);
    const byId = this.thread(threadId).checkpoints.get(ns);
    if (byId === undefined) return undefined;
    if (wanted) {
      const stored = byId.get(checkKey('checkpoint_id', wanted));
      return stored === undefined ? undefined : this.tuple(threadId, ns, wanted, stored, config);
    }
    const latest = [...byId.keys()].sort().at(-1);
    return latest === undefined ? undefined : this.tuple(threadId, ns, latest, byId.get(latest) as StoredCheckpoint);
  }

  /**
   * The checkpoints matching `config` (thread, namespace, id; all threads when none is given), newest
   * first per thread and namespace; `options.before` keeps those older than a checkpoint id, `options.limit`
   * caps the count, `options.filter` keeps those whose metadata has the given values.
   * @throws `RxSliceSaverError` when an id would reach `Object.prototype`.
   * @example
   * ```ts
   * for await (const t of saver.list({ configurable: { thread_id: 't1' } }, { limit: 10 })) console.log(t.checkpoint.id);
   * ```
   */
  override async *list(config: RunnableConfig, options?: CheckpointListOptions): AsyncGenerator<CheckpointTuple> {
    const { before, filter } = options ?? {};
    let limit = options?.limit;
    const wantedThread = config.configurable?.['thread_id'];
    const wantedNs = config.configurable?.['checkpoint_ns'];
    const wantedId = config.configurable?.['checkpoint_id'];
    if (wantedThread !== undefined) checkKey('thread_id', wantedThread);
    if (wantedNs !== undefined) checkKey('checkpoint_ns', wantedNs, true);
    if (wantedId) checkKey('checkpoint_id', wantedId);
    const beforeId = before?.configurable?.['checkpoint_id'];
    if (beforeId) checkKey('checkpoint_id', beforeId);
    const threads = wantedThread ? [wantedThread as string] : [...new Set([...this.storage.threads(), ...this.index.keys()])];
    for (const threadId of threads) {
      for (const [ns, byId] of this.thread(threadId).checkpoints) {
        if (wantedNs !== undefined && ns !== wantedNs) continue;
        for (const id of [...byId.keys()].sort().reverse()) {
          if (wantedId && id !== wantedId) continue;
          if (beforeId && id >= beforeId) continue;
          const stored = byId.get(id) as StoredCheckpoint;
          if (filter !== undefined) {
            const metadata = (await this.serde.loadsTyped(stored.metadata[0], fromBlob(stored.metadata))) as Record<string, unknown>;
            if (!Object.entries(filter).every(([k, v]) => metadata[k] === v)) continue;
          }
          if (limit !== undefined) {
            if (limit <= 0) return;
            limit -= 1;
          }
          yield await this.tuple(threadId, ns, id, stored);
        }
      }
    }
  }

  /**
   * Stores `checkpoint` and `metadata` as a child of `config.configurable.checkpoint_id`, with only the
   * channel values `newVersions` names (deltas). Resolves, once the record is appended (and synced
   * by a file storage), to the config addressing the stored checkpoint.
   * @throws `RxSliceSaverError` without `configurable.thread_id`, or when an id would reach `Object.prototype`.
   * @example
   * ```ts
   * const next = await saver.put({ configurable: { thread_id: 't1' } }, checkpoint, { source: 'input', step: -1, parents: {} }, {});
   * ```
   */
  override async put(config: RunnableConfig, checkpoint: Checkpoint, metadata: CheckpointMetadata, newVersions?: ChannelVersions): Promise<RunnableConfig> {
    const threadId = config.configurable?.['thread_id'];
    if (threadId === undefined) throw new RxSliceSaverError('put needs configurable.thread_id (graph.invoke(input, { configurable: { thread_id } }))');
    checkKey('thread_id', threadId);
    const ns = checkKey('checkpoint_ns', config.configurable?.['checkpoint_ns'] ?? '', true);
    const id = checkKey('checkpoint_id', checkpoint.id);
    const parentId = config.configurable?.['checkpoint_id'] as string | undefined;
    // Deltas: a channel's value is stored by the checkpoint whose newVersions name it, once per
    // version; the checkpoint itself is stored without values.
    const copy = copyCheckpoint(checkpoint);
    const values = copy.channel_values ?? {};
    copy.channel_values = {};
    const blobs: Record<string, { version: string | number; value: LangGraphBlob | null }> = {};
    for (const [channel, version] of Object.entries(newVersions ?? {})) {
      blobs[channel] = { version, value: Object.hasOwn(values, channel) ? toBlob(await this.serde.dumpsTyped(values[channel])) : null };
    }
    const [serialisedCheckpoint, serialisedMetadata] = await Promise.all([this.serde.dumpsTyped(copy), this.serde.dumpsTyped(metadata)]);
    this.append({ kind: 'checkpoint', threadId, ns, id, parentId: parentId || undefined, checkpoint: toBlob(serialisedCheckpoint), metadata: toBlob(serialisedMetadata), blobs });
    return { configurable: { thread_id: threadId, checkpoint_ns: ns, checkpoint_id: id } };
  }

  override async putWrites(config: RunnableConfig, writes: PendingWrite[], taskId: string, taskPath?: string): Promise<void> {
    const threadId = config.configurable?.['thread_id'];
    const checkpointId = config.configurable?.['checkpoint_id'];
    if (threadId === undefined) throw new RxSliceSaverError('putWrites needs configurable.thread_id');
    if (checkpointId === undefined) throw new RxSliceSaverError('putWrites needs configurable.checkpoint_id');
    checkKey('thread_id', threadId);
    checkKey('checkpoint_id', checkpointId);
    checkKey('task_id', taskId);
    const ns = checkKey('checkpoint_ns', config.configurable?.['checkpoint_ns'] ?? '', true);
    const existing = this.thread(threadId).writes.get(writesKey(ns, checkpointId));
    const records = await Promise.all(
      writes.map(async ([channel, value], i) => {
        const idx = (WRITES_IDX_MAP as Record<string, number | undefined>)[channel] ?? i;
        // A regular write (index ≥ 0) is kept once; special channels (errors, interrupts) are replaced.
        if (idx >= 0 && existing?.has(`${taskId},${idx}`)) return undefined;
        const serialised = await this.serde.dumpsTyped(value);
        return { kind: 'write' as const, threadId, ns, checkpointId, taskId, idx, channel, value: toBlob(serialised), taskPath: taskPath ?? '' };
      }),
    );
    for (const r of records) if (r !== undefined) this.append(r);
  }

  override async deleteThread(threadId: string): Promise<void> {
    checkKey('thread_id', threadId);
    this.storage.delete(threadId);
    this.index.delete(threadId);
  }
}
