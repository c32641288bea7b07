import { toIssues } from '../internal/errors';
import { deepFreeze } from '../internal/freeze';
import type { SliceOp } from '../slices/slice-op';
import type { StorageTransaction } from '../storage/slice-storage';
import { InvalidSliceItemError } from './errors';
import type { SliceRecord } from './slice-handle';

// Module-level functions (no per-session closures): V8 optimizes them once for every session.

/**
 * @internal Validates `item` (at `index`) against the slice's schema; returns the parsed item.
 * @throws {@link InvalidSliceItemError} when it does not match.
 */
export function checkItem(record: SliceRecord<any>, item: unknown, index: number): unknown {
  const schema = record.def.schema;
  if (schema === undefined) return item;
  const r = schema.safeParse(item);
  if (!r.success) throw new InvalidSliceItemError(record.def.name, index, toIssues(r.error.issues));
  return r.data;
}

/**
 * @internal Applies a reducer's op to the slice's open transaction, validating (`check`) and
 * deep-freezing (`freeze`) the items it brings in; `at` is the envelope's time.
 * @throws TypeError when `op` is not a SliceOp.
 */
export function applyOp(record: SliceRecord<any>, tx: StorageTransaction<any>, op: SliceOp<any>, at: number, validate: boolean, freeze: boolean): void {
  if (op === null || typeof op !== 'object') notASliceOp(op);
  const check = validate && record.def.schema !== undefined;
  switch (op.kind) {
    case 'append':
      if (check) checkItem(record, op.item, tx.view().size);
      tx.append(freeze ? deepFreeze(op.item) : op.item, at);
      break;
    case 'extend': {
      const base = tx.view().size;
      for (let i = 0; i < op.items.length; i++) {
        const item = op.items[i];
        if (check) checkItem(record, item, base + i);
        tx.append(freeze ? deepFreeze(item) : item, at);
      }
      break;
    }
    case 'replace': {
      if (check || freeze) {
        const prev = tx.view();
        for (let i = 0; i < op.items.length; i++) {
          const item = op.items[i];
          if (prev.at(i) === item) continue;
          if (check) checkItem(record, item, i);
          if (freeze) deepFreeze(item);
        }
      }
      tx.replace(op.items, at);
      break;
    }
    case 'clear':
      tx.clear(op.predicate);
      break;
    case 'none':
      break;
    default:
      notASliceOp(op);
  }
}

function notASliceOp(op: unknown): never {
  throw new TypeError(
    `The reducer returned ${op === undefined ? 'undefined' : JSON.stringify(op)}, which is not a SliceOp. Return append(...), extend(...), replace(...), clear(...) or none().`,
  );
}

/**
 * @internal Runs the slice's window over its open transaction (when it changed) and keeps the
 * evicted items on the record until the commit reports them.
 */
export function applyWindow(record: SliceRecord<any>, tx: StorageTransaction<any>, seq: number, at: number): void {
  const window = record.window;
  if (window === undefined || !tx.changed) return;
  const decision = window.evict(tx.view(), {
    now: at,
    seq,
    appended: tx.appended,
    timeAt: (i) => tx.timeAt(i),
    memo: tx.windowMemo,
    remember: tx.rememberWindow,
  });
  let dropped: readonly unknown[];
  switch (decision.kind) {
    case 'none':
      return;
    case 'front':
      dropped = tx.dropFront(decision.count);
      break;
    case 'back':
      dropped = tx.dropBack(decision.count);
      break;
    case 'indices':
      dropped = tx.dropIndices(decision.indices);
      break;
  }
  if (dropped.length > 0) {
    if (record.evicted === undefined) record.evicted = [...dropped];
    else for (const item of dropped) record.evicted.push(item);
  }
}
