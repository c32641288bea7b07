import { codedMessage } from '../internal/coded-message';
import { DEV } from '../internal/dev';
import { toIssues } from '../internal/errors';
import { deepFreeze } from '../internal/freeze';
import { jsonIssue, jsonProblem, type JsonProblem } from '../internal/json-data';
import type { SliceOp } from '../slices/slice-op';
import { checkUpdateIndex } from '../storage/memory-content';
import type { StorageTransaction } from '../storage/slice-storage';
import { InvalidSliceItemError } from './errors';
import type { SliceRecord } from './slice-handle';

// Module-level functions (no per-session closures): V8 optimizes them once for every session.

/** How far past the expected position a `replace` looks for a kept item (items removed before it). */
const REPLACE_LOOKAHEAD = 8;

/**
 * @internal Validates `item` (at `index`) against the slice's schema; returns the parsed item.
 * @throws {@link InvalidSliceItemError} when it does not match (or the schema throws).
 */
export function checkItem(record: SliceRecord<any>, item: unknown, index: number): unknown {
  const schema = record.def.schema;
  if (schema === undefined) return item;
  let r: ReturnType<typeof schema.safeParse>;
  try {
    r = schema.safeParse(item);
  } catch (cause) {
    // A transform or refinement that throws, a getter, a stack overflow on a very deep value.
    throw new InvalidSliceItemError(record.def.name, index, [{ code: 'schema_threw', path: [], message: `the schema threw: ${messageOf(cause)}` }]);
  }
  if (!r.success) throw new InvalidSliceItemError(record.def.name, index, toIssues(r.error.issues));
  return r.data;
}

/**
 * @internal What the slice stores for a reducer's `item` when validation is on: the schema's
 * output (defaults, transforms, unknown keys stripped), which must be plain JSON data (see
 * `jsonProblem`), so that what the slice holds is exactly what its JSON round trip restores.
 * An object this record already normalised is returned as is.
 * @throws {@link InvalidSliceItemError} when the item fails the schema or is not JSON data.
 */
export function normalizeItem(record: SliceRecord<any>, item: unknown, index: number): unknown {
  // The schema's output is JSON data by construction (see `schemaGivesJson`): nothing to walk or remember.
  if (record.jsonSafe) return checkItem(record, item, index);
  if (item !== null && typeof item === 'object' && record.normalized.has(item)) return item;
  const out = checkItem(record, item, index);
  let problem: JsonProblem | undefined;
  try {
    problem = jsonProblem(out);
  } catch (cause) {
    throw new InvalidSliceItemError(record.def.name, index, [{ code: 'unreadable', path: [], message: `reading it threw: ${messageOf(cause)}` }]);
  }
  if (problem !== undefined) throw new InvalidSliceItemError(record.def.name, index, [jsonIssue(problem)]);
  if (out !== null && typeof out === 'object') record.normalized.add(out);
  return out;
}

/**
 * @internal An item from outside the session (a seed, a hand-made snapshot): copied first
 * (`structuredClone`: getters and proxies are read once, into inert data), checked to be plain
 * JSON data, validated with the schema (whose output is checked again), then deep-frozen.
 * @throws {@link InvalidSliceItemError} when any step fails; the caller changes nothing then.
 */
export function importItem(record: SliceRecord<any>, item: unknown, index: number): unknown {
  let copy: unknown;
  try {
    copy = structuredClone(item);
  } catch (cause) {
    const problem = safeJsonProblem(item);
    throw new InvalidSliceItemError(record.def.name, index, [
      problem !== undefined ? jsonIssue(problem) : { code: 'not_json', path: [], message: `it cannot be copied (${messageOf(cause)}); slice items must be plain JSON data` },
    ]);
  }
  const problem = jsonProblem(copy);
  if (problem !== undefined) throw new InvalidSliceItemError(record.def.name, index, [jsonIssue(problem)]);
  return deepFreeze(record.def.schema === undefined ? copy : normalizeItem(record, copy, index));
}

/** {@link jsonProblem}, or `undefined` when reading the value throws. */
function safeJsonProblem(value: unknown): JsonProblem | undefined {
  try {
    return jsonProblem(value);
  } catch {
    return undefined;
  }
}

const messageOf = (e: unknown): string => (e instanceof Error ? e.message : String(e));

/**
 * @internal Applies a reducer's op to the slice's open transaction; `at` is the envelope's
 * time. With `validate`, each item it brings in is replaced by its normalised form
 * ({@link normalizeItem}); with `freeze`, items are deep-frozen.
 * @throws TypeError when `op` is not a SliceOp; {@link InvalidSliceItemError} for a bad item.
 */
export function applyOp(record: SliceRecord<any>, tx: StorageTransaction<any>, op: SliceOp<any>, at: number, validate: boolean, freeze: boolean): void {
  if (op === null || typeof op !== 'object') notASliceOp(op);
  switch (op.kind) {
    case 'append': {
      const item = validate ? normalizeItem(record, op.item, tx.view().size) : op.item;
      tx.append(freeze ? deepFreeze(item) : item, at);
      break;
    }
    case 'extend': {
      const base = tx.view().size;
      for (let i = 0; i < op.items.length; i++) {
        const item = validate ? normalizeItem(record, op.items[i], base + i) : op.items[i];
        tx.append(freeze ? deepFreeze(item) : item, at);
      }
      break;
    }
    case 'replace': {
      let items = op.items;
      if (validate || freeze) {
        // Only items that are not in the previous content (already checked and frozen when they
        // entered) are normalised: a merge-like scan that follows the previous content in order,
        // so kept items are skipped also after an insertion, a replaced item or a few removals.
        const prev = tx.view();
        const prevSize = prev.size;
        let j = 0;
        let copied: unknown[] | undefined;
        for (let i = 0; i < items.length; i++) {
          const item = items[i];
          if (j < prevSize) {
            if (prev.at(j) === item) {
              j++;
              continue;
            }
            let k = j + 1;
            const last = Math.min(prevSize, j + 1 + REPLACE_LOOKAHEAD);
            while (k < last && prev.at(k) !== item) k++;
            if (k < last) {
              j = k + 1;
              continue;
            }
          }
          const next = validate ? normalizeItem(record, item, i) : item;
          if (next !== item) (copied ??= items.slice())[i] = next;
          if (freeze) deepFreeze(next);
        }
        if (copied !== undefined) items = copied;
      }
      tx.replace(items, at);
      break;
    }
    case 'updateAt': {
      const view = tx.view();
      const index = op.index;
      checkUpdateIndex(index, view.size);
      // The same item changes nothing (it was checked and frozen when it entered).
      if (view.at(index) === op.item) break;
      const item = validate ? normalizeItem(record, op.item, index) : op.item;
      if (freeze) deepFreeze(item);
      if (tx.updateAt !== undefined) tx.updateAt(index, item, at);
      else {
        const items = view.all().slice();
        items[index] = item;
        tx.replace(items, at);
      }
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

/**
 * @internal Stages `next` as the slice's new latest item in its open transaction (what an
 * `onLatest` reducer's `replaceLatestOp` + {@link applyOp} did, without the op): appended when the
 * slice is empty, else the content with its last item replaced (the earlier items are the same
 * references, so only `next` is normalised and frozen). `at` is the envelope's time (ms).
 * @throws {@link InvalidSliceItemError} for a bad item (the caller discards the stage).
 */
export function stageLatest(record: SliceRecord<any>, tx: StorageTransaction<any>, next: unknown, at: number, validate: boolean, freeze: boolean): void {
  const view = tx.view();
  const size = view.size;
  const item = validate ? normalizeItem(record, next, size === 0 ? 0 : size - 1) : next;
  if (freeze) deepFreeze(item);
  if (tx.replaceLast !== undefined) tx.replaceLast(item, at);
  else if (size === 0) tx.append(item, at);
  else if (size === 1) tx.replace([item], at);
  else {
    const items = view.all().slice(0, size - 1);
    items.push(item);
    tx.replace(items, at);
  }
}

function notASliceOp(op: unknown): never {
  const returned = op === undefined ? 'undefined' : JSON.stringify(op);
  throw new TypeError(
    !DEV ? codedMessage('E31', returned) : `The reducer returned ${returned}, which is not a SliceOp. Return append(...), extend(...), replace(...), updateAt(...), clear(...) or none().`,
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
