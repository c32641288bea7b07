import type { Subscription } from 'rxjs';
import { z } from 'zod';
import { deepFreeze } from '../internal/freeze';
import type { CoreStore } from '../session/session-types';
import { newSnapshotId } from '../snapshots/snapshot';
import type { StateDef, StateUpdate, StateValue } from './define-state';
import { recordSession, type SessionStep } from './session-recorder';
import { quote } from '../internal/quote';
import { CheckpointError, type CheckpointMetadata, type CheckpointRecord, type CheckpointStorage, memoryCheckpoints } from './checkpoint-storage';

/** A checkpoint as read back: its record's identity and metadata, and the state value at it. */
export interface Checkpoint<TValue> {
  readonly id: string;
  readonly threadId: string;
  readonly parentId: string | null;
  readonly createdAt: number;
  readonly metadata: CheckpointMetadata;
  /** The state after this checkpoint's step (frozen). */
  readonly values: TValue;
}

/** Options of {@link Checkpointer.history}. */
export interface HistoryOptions<TValue> {
  /** At most this many (newest first). */
  readonly limit?: number;
  /** Only checkpoints older than this checkpoint id. */
  readonly before?: string;
  /** Only checkpoints whose metadata has these values (LangGraph's `filter`). */
  readonly filter?: Readonly<Record<string, unknown>>;
  /** Only checkpoints for which this returns true. */
  readonly where?: (checkpoint: Checkpoint<TValue>) => boolean;
}

/** A per-thread checkpointer over one {@link defineState} state. See {@link createCheckpointer}. */
export interface Checkpointer<TValue, TUpdate> {
  /** Records one step of `threadId` (its updates, merged as `updateMany`); returns the new checkpoint. */
  put(threadId: string, updates: readonly TUpdate[], metadata?: Readonly<Record<string, unknown>>): Checkpoint<TValue>;
  /** The newest checkpoint of `threadId`, or `undefined` for a thread without any. */
  latest(threadId: string): Checkpoint<TValue> | undefined;
  /** The checkpoint `checkpointId` of `threadId`. @throws {@link CheckpointError} `CHECKPOINT_NOT_FOUND` */
  getAt(threadId: string, checkpointId: string): Checkpoint<TValue>;
  /** The checkpoints of `threadId`, newest first (LangGraph's `getStateHistory`). */
  history(threadId: string, options?: HistoryOptions<TValue>): Checkpoint<TValue>[];
  /** Writes `update` as its own step, as if node `asNode` had (LangGraph's `updateState`). */
  updateState(threadId: string, update: TUpdate, options?: { readonly asNode?: string }): Checkpoint<TValue>;
  /** Starts thread `newThreadId` from checkpoint `checkpointId` of `threadId` (its parent). */
  fork(threadId: string, checkpointId: string, newThreadId: string): Checkpoint<TValue>;
  /** Removes every checkpoint of `threadId`. */
  deleteThread(threadId: string): void;
  /**
   * Retention: per thread, keeps the newest `keepLast` checkpoints and those younger than
   * `ttlMs`; a thread whose every checkpoint is older than `ttlMs` (and not kept) is deleted.
   * The oldest kept checkpoint is stored in full, so what is kept still decodes.
   * Returns the number of checkpoints removed.
   * @remarks Every thread is decoded first: one that does not decode fails the prune
   * (`CHECKPOINT_CORRUPT`) with nothing removed. In a directory that `RxSliceSaver` writes too,
   * the saver's threads are left alone (LangGraph's saver has no retention but `deleteThread`).
   */
  prune(options: { readonly keepLast?: number; readonly ttlMs?: number }): number;
  /**
   * Keeps thread `threadId` on what `session` committed: from now on, every commit that changes
   * the state's slice is a checkpoint, so the thread's latest checkpoint always equals the
   * session's committed state, and a fork or a resume from it never brings back undone work.
   *
   * @remarks Keyed on the slice's committed content, not on event types:
   * - an update step is a delta (`source: 'loop'`, metadata `seq`) when applying its updates to
   *   the previous checkpoint gives exactly what the session committed; otherwise (a reducer
   *   middleware or another reducer changed the outcome) the committed value is stored in full;
   * - any other change (`session.restore`, a time-travel `restoreTo`, a transaction's rollback,
   *   `reset`, `seed`, `clear`, a reducer of another event) is a full checkpoint of the committed
   *   value (`source: 'update'`, metadata `seq` and `event`, the type of the event that changed it);
   * - an update that changes nothing records nothing; several commits published at once (a
   *   `batch`) are one delta each when all are updates, else one checkpoint of the result.
   *
   * Inside `session.transaction`, checkpoints are held and written, in order, when the outermost
   * transaction commits (for an async `fn`, when its promise resolves; with async transactions that
   * overlap, when none is open any more); a rollback drops the held checkpoints of what it undid,
   * so no checkpoint ever holds rolled-back work (as in LangGraph, where a step that fails writes
   * no checkpoint). While a transaction is open, the latest checkpoint is the state before it.
   *
   * When attaching, if the session's state is not the thread's latest checkpoint (a reopened
   * thread, a session restored from elsewhere), the session's state is recorded first
   * (`source: 'update'`, metadata `attached: true`); a thread without checkpoints and a session
   * at the defaults record nothing until the first change. Writes are synchronous, inside the
   * commit's notification; a storage failure is reported on the session's `errors$`.
   * Unsubscribe to stop (checkpoints held by an open transaction are then dropped).
   * @throws `SliceNotRegisteredError` when the state is not a slice of `session`;
   * {@link CheckpointError} when the thread's records do not decode (`CHECKPOINT_CORRUPT`).
   * @example
   * ```ts
   * checkpoints.attach(session, 't1');
   * session.dispatch(Run.update({ steps: ['plan'] }));
   * session.transaction(() => {
   *   session.dispatch(Run.update({ steps: ['oops'] }));
   *   throw new Error('abort');
   * }); // throws; the thread's latest checkpoint is still { steps: ['plan'] }
   * ```
   */
  attach(session: CoreStore, threadId: string): Subscription;
  /** Bytes stored, as JSON. */
  bytes(): number;
}

const Metadata = z.looseObject({ source: z.enum(['input', 'loop', 'update', 'fork']), step: z.number().int().nonnegative(), asNode: z.string().optional() });
const RecordSchema = z.object({
  id: z.string().min(1),
  threadId: z.string().min(1),
  parentId: z.string().min(1).nullable(),
  createdAt: z.number(),
  metadata: Metadata,
  updates: z.array(z.record(z.string(), z.unknown())).optional(),
  values: z.record(z.string(), z.unknown()).optional(),
});

/**
 * A checkpointer: each step of a thread is a checkpoint (id, parent id, metadata) stored as a
 * delta (the step's partial updates), plus a full value whenever the deltas since the last full
 * one outweigh `fullRatio` copies of the state. Storage therefore grows linearly with what the
 * steps write, full records adding at most 1/`fullRatio` of it (a full copy every step, as
 * LangGraph's savers store, grows with the square), and a value is rebuilt from at most
 * `fullRatio` states' worth of deltas after the nearest full record.
 *
 * @remarks Reading fails closed: a record that does not match the record schema, a delta the
 * state's update schema refuses, a missing parent, or a value the state's schema refuses is a
 * {@link CheckpointError} (`CHECKPOINT_CORRUPT`), never a silently different value. Replaying a
 * thread's deltas reproduces every checkpoint exactly (the state's reducers are pure).
 * @param options.fullRatio - Default 8 (full records then add at most 1/8 of the deltas' bytes).
 * @param options.now - Clock for `createdAt` and `ttlMs` (ms). Default `Date.now`.
 * @example
 * ```ts
 * const checkpoints = createCheckpointer({ state: Execution });
 * checkpoints.put('thread-1', [{ toolCalls: [call] }]);
 * checkpoints.history('thread-1', { limit: 5 }).map((c) => c.metadata.step);
 * ```
 */
export function createCheckpointer<TName extends string, TFields extends Readonly<Record<string, { readonly schema: z.ZodType<any>; readonly default: unknown }>>>(options: {
  readonly state: StateDef<TName, TFields>;
  readonly storage?: CheckpointStorage;
  readonly fullRatio?: number;
  readonly now?: () => number;
}): Checkpointer<StateValue<TFields>, StateUpdate<TFields>> {
  type V = StateValue<TFields>;
  type U = StateUpdate<TFields>;
  const { state } = options;
  const storage = options.storage ?? memoryCheckpoints();
  const fullRatio = options.fullRatio ?? 8;
  const now = options.now ?? Date.now;
  if (!(fullRatio >= 1)) throw new CheckpointError('INVALID_CHECKPOINT_OPTIONS', `fullRatio must be ≥ 1 (got ${String(fullRatio)})`);
  const updatesSchema = (state.Updated.schema as z.ZodType<{ updates: U[] }>) ?? z.object({ updates: z.array(z.record(z.string(), z.unknown())) });
  const valueSchema = state.schema as z.ZodType<V>;
  /** Per thread: bytes of deltas since the last full record, and the state's size when last measured. */
  const since = new Map<string, { deltas: number; full: number }>();
  /** Per thread written through this checkpointer: its newest checkpoint (so a put reads nothing). */
  const tip = new Map<string, Checkpoint<V>>();

  const corrupt = (threadId: string, why: string, cause?: unknown): never => {
    throw new CheckpointError('CHECKPOINT_CORRUPT', `Thread ${quote(threadId)}: ${why}; nothing was read`, cause === undefined ? undefined : { cause });
  };
  /** Decodes a thread: every record checked, every value rebuilt (fails closed). */
  const decode = (threadId: string, records: readonly CheckpointRecord[] = storage.read(threadId)): Checkpoint<V>[] => {
    const out: Checkpoint<V>[] = [];
    const byId = new Map<string, V>();
    for (const raw of records) {
      const parsed = RecordSchema.safeParse(raw);
      if (!parsed.success) corrupt(threadId, `a record does not match the checkpoint format (${parsed.error.issues[0]?.message ?? 'invalid'})`);
      const r = parsed.data as CheckpointRecord;
      let values: V;
      if (r.values !== undefined) {
        const v = valueSchema.safeParse(r.values);
        if (!v.success) corrupt(threadId, `checkpoint ${r.id} holds a value the state's schema refuses (${v.error.issues[0]?.message ?? 'invalid'})`);
        values = v.data as V;
      } else {
        const parent = r.parentId === null ? undefined : byId.get(r.parentId);
        if (parent === undefined) corrupt(threadId, `checkpoint ${r.id} is a delta whose parent ${String(r.parentId)} is not before it`);
        const u = updatesSchema.safeParse({ updates: r.updates ?? [] });
        if (!u.success) corrupt(threadId, `checkpoint ${r.id} holds updates the state refuses (${u.error.issues[0]?.message ?? 'invalid'})`);
        try {
          values = state.apply(parent as V, (u.data as { updates: U[] }).updates);
        } catch (e) {
          return corrupt(threadId, `checkpoint ${r.id}'s updates do not apply`, e);
        }
      }
      values = deepFreeze(values);
      byId.set(r.id, values);
      out.push({ id: r.id, threadId: r.threadId, parentId: r.parentId, createdAt: r.createdAt, metadata: r.metadata, values });
    }
    return out;
  };
  const last = (threadId: string): Checkpoint<V> | undefined => decode(threadId).at(-1);
  const write = (threadId: string, parent: Checkpoint<V> | undefined, metadata: CheckpointMetadata, updates: readonly U[] | undefined, values: V): Checkpoint<V> => {
    const id = newSnapshotId();
    const createdAt = now();
    const track = since.get(threadId);
    const deltaBytes = updates === undefined ? 0 : JSON.stringify(updates).length;
    // A full record once the deltas since the last one outweigh `fullRatio` copies of the state:
    // full records then cost at most 1/fullRatio of the deltas' bytes, and a read replays at most
    // `fullRatio` states' worth of deltas. The state is measured (stringified) only when the
    // deltas outweigh the last measure, so measuring stays amortized O(1) per step.
    let full = updates === undefined || parent === undefined || track === undefined;
    let size = track?.full ?? 0;
    if (!full && (track as { deltas: number }).deltas + deltaBytes > fullRatio * Math.max(size, 1)) {
      size = JSON.stringify(values).length;
      full = (track as { deltas: number }).deltas + deltaBytes > fullRatio * Math.max(size, 1);
    }
    if (full) size = JSON.stringify(values).length;
    const record: CheckpointRecord = full
      ? { id, threadId, parentId: parent?.id ?? null, createdAt, metadata, values: values as Record<string, unknown> }
      : { id, threadId, parentId: (parent as Checkpoint<V>).id, createdAt, metadata, updates: updates as readonly Record<string, unknown>[] };
    storage.append(record);
    since.set(threadId, full ? { deltas: 0, full: size } : { deltas: (track as { deltas: number }).deltas + deltaBytes, full: size });
    const checkpoint = { id, threadId, parentId: record.parentId, createdAt, metadata, values: deepFreeze(values) };
    tip.set(threadId, checkpoint);
    return checkpoint;
  };
  const sync = (threadId: string, list: readonly Checkpoint<V>[]): void => {
    // Rebuild the delta accounting of a thread read from storage (another process may have written it).
    if (since.has(threadId) || list.length === 0) return;
    since.set(threadId, { deltas: Number.POSITIVE_INFINITY, full: 1 }); // the next record is full
  };
  const checkThread = (threadId: unknown): string => {
    if (typeof threadId !== 'string' || threadId.length === 0) throw new CheckpointError('INVALID_CHECKPOINT_OPTIONS', 'a thread id must be a non-empty string');
    return threadId;
  };
  const find = (threadId: string, checkpointId: string): { list: Checkpoint<V>[]; index: number } => {
    const list = decode(threadId);
    const index = list.findIndex((c) => c.id === checkpointId);
    if (index < 0) throw new CheckpointError('CHECKPOINT_NOT_FOUND', `Thread ${quote(threadId)} has no checkpoint ${quote(checkpointId)}`);
    return { list, index };
  };
  /** The newest checkpoint of a thread, from what this checkpointer wrote or else from storage. */
  const parentOf = (threadId: string): Checkpoint<V> | undefined => {
    const known = tip.get(threadId);
    if (known !== undefined) return known;
    const list = decode(threadId);
    sync(threadId, list);
    return list.at(-1);
  };
  const step = (threadId: string, updates: readonly U[], extra: Readonly<Record<string, unknown>>, source: 'input' | 'loop' | 'update'): Checkpoint<V> => {
    checkThread(threadId);
    const parent = parentOf(threadId);
    const parsed = updatesSchema.safeParse({ updates });
    if (!parsed.success) throw new CheckpointError('INVALID_CHECKPOINT_OPTIONS', `the updates do not match the state ${quote(state.name)} (${parsed.error.issues[0]?.message ?? 'invalid'})`);
    const clean = (parsed.data as { updates: U[] }).updates;
    const values = state.apply(parent?.values ?? state.defaults, clean);
    const metadata = { ...extra, source: parent === undefined ? 'input' : source, step: parent === undefined ? 0 : parent.metadata.step + 1 } as CheckpointMetadata;
    return write(threadId, parent, metadata, parent === undefined ? undefined : clean, values);
  };

  return {
    put: (threadId, updates, metadata = {}) => step(threadId, updates, metadata, 'loop'),
    latest: (threadId) => last(checkThread(threadId)),
    getAt: (threadId, checkpointId) => {
      const { list, index } = find(checkThread(threadId), checkpointId);
      return list[index] as Checkpoint<V>;
    },
    history: (threadId, opts = {}) => {
      let list = decode(checkThread(threadId)).reverse();
      if (opts.before !== undefined) {
        const i = list.findIndex((c) => c.id === opts.before);
        if (i < 0) throw new CheckpointError('CHECKPOINT_NOT_FOUND', `Thread ${quote(threadId)} has no checkpoint ${quote(opts.before)}`);
        list = list.slice(i + 1);
      }
      if (opts.filter !== undefined) {
        const filter = opts.filter;
        list = list.filter((c) => Object.keys(filter).every((k) => JSON.stringify(c.metadata[k]) === JSON.stringify(filter[k])));
      }
      if (opts.where !== undefined) list = list.filter(opts.where);
      return opts.limit === undefined ? list : list.slice(0, Math.max(0, opts.limit));
    },
    updateState: (threadId, update, opts = {}) => step(threadId, [update], opts.asNode === undefined ? {} : { asNode: opts.asNode }, 'update'),
    fork: (threadId, checkpointId, newThreadId) => {
      const { list, index } = find(checkThread(threadId), checkpointId);
      checkThread(newThreadId);
      if (storage.read(newThreadId).length > 0) throw new CheckpointError('INVALID_CHECKPOINT_OPTIONS', `thread ${quote(newThreadId)} already exists`);
      const from = list[index] as Checkpoint<V>;
      return write(newThreadId, undefined, { source: 'fork', step: 0, forkedFrom: { threadId, checkpointId } }, undefined, from.values as V);
    },
    deleteThread: (threadId) => {
      storage.delete(checkThread(threadId));
      since.delete(threadId);
      tip.delete(threadId);
    },
    prune: ({ keepLast, ttlMs }) => {
      if (keepLast === undefined && ttlMs === undefined) throw new CheckpointError('INVALID_CHECKPOINT_OPTIONS', 'prune needs keepLast and/or ttlMs');
      if (keepLast !== undefined && !(Number.isInteger(keepLast) && keepLast >= 0)) throw new CheckpointError('INVALID_CHECKPOINT_OPTIONS', 'keepLast must be an integer ≥ 0');
      let removed = 0;
      const t = now();
      // Every thread is decoded before anything is removed: a thread that does not decode fails the
      // prune with nothing changed. Threads of RxSliceSaver (every record has a `kind`), in a
      // directory both write to, are not this checkpointer's: left as they are.
      const plans: { threadId: string; raw: readonly CheckpointRecord[]; list: Checkpoint<V>[]; keep: Checkpoint<V>[] }[] = [];
      for (const threadId of storage.threads()) {
        const raw = storage.read(threadId);
        if (raw.length > 0 && raw.every((r) => typeof (r as { kind?: unknown }).kind === 'string')) continue;
        const list = decode(threadId, raw);
        const keep = list.filter((c, i) => (keepLast !== undefined && i >= list.length - keepLast) || (ttlMs !== undefined && t - c.createdAt < ttlMs));
        if (keep.length < list.length) plans.push({ threadId, raw, list, keep });
      }
      for (const { threadId, raw, list, keep } of plans) {
        removed += list.length - keep.length;
        if (keep.length === 0) {
          storage.delete(threadId);
          since.delete(threadId);
          tip.delete(threadId);
          continue;
        }
        // Kept checkpoints are contiguous newest ones; the oldest kept becomes a full record.
        const first = raw.findIndex((r) => r.id === (keep[0] as Checkpoint<V>).id);
        const head = keep[0] as Checkpoint<V>;
        storage.rewrite(threadId, [{ id: head.id, threadId, parentId: null, createdAt: head.createdAt, metadata: head.metadata, values: head.values as Record<string, unknown> }, ...raw.slice(first + 1)]);
        since.set(threadId, { deltas: Number.POSITIVE_INFINITY, full: 1 });
      }
      return removed;
    },
    attach: (session, threadId) => {
      checkThread(threadId);
      return recordSession<V, U>(session, {
        slice: state,
        defaults: state.defaults,
        isUpdate: (event) => state.Updated.match(event as { type: string }),
        updatesOf: (event) => {
          const parsed = updatesSchema.safeParse((event as { payload: unknown }).payload);
          return parsed.success ? (parsed.data as { updates: U[] }).updates : undefined;
        },
        apply: (value, updates) => state.apply(value, updates),
        latest: () => parentOf(threadId)?.values,
        record: (s: SessionStep<V, U>) => {
          const parent = parentOf(threadId);
          // A delta only on the very checkpoint the step was computed from (another writer of the thread makes it a full record).
          const delta = s.updates !== undefined && parent !== undefined && parent.values === s.base;
          const metadata = { ...s.metadata, source: parent === undefined ? 'input' : s.source, step: parent === undefined ? 0 : parent.metadata.step + 1 } as CheckpointMetadata;
          write(threadId, parent, metadata, delta ? s.updates : undefined, s.values);
        },
      });
    },
    bytes: () => storage.bytes(),
  };
}
