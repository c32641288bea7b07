import type { Reducer } from '../slices/reducer';
import { codedMessage } from '../internal/coded-message';
import { DEV } from '../internal/dev';
import { withAccessors } from '../internal/fast-object';
import { windowPolicyProblem } from '../slices/define-slice';
import { InvalidWindowError } from '../windows/invalid-window-error';
import { withEviction } from '../windows/with-eviction';
import { SessionDisposedError, UnsupportedOnSharedSessionError } from './errors';
import { sortMiddleware } from './middleware-set';
import { pipelineLayer } from './feature-layers';
import type { SessionCore } from './session-core';
import type { SliceHandle, SliceRecord, SliceRuntimeConfig } from './slice-handle';
import { SliceAppended, SliceCleared, SliceLatestReplaced, SliceSeeded } from './system-events';
import { quote } from '../internal/quote';

// The public slice handle (`session.slice(def)`) and run-time middleware (`use`), built around
// a session core and one of its slice records.

/** Where the handle's shared accessors (see `withAccessors`: the handles stay fast) find its slice record. */
const RECORD = Symbol('rxslice.record');
interface WithRecord {
  readonly [RECORD]: SliceRecord<any>;
}
const HANDLE_ACCESSORS: PropertyDescriptorMap = {
  version: {
    get(this: WithRecord) {
      return this[RECORD].storage.version;
    },
    enumerable: true,
  },
  isEmpty: {
    get(this: WithRecord) {
      return this[RECORD].storage.size === 0;
    },
    enumerable: true,
  },
  size: {
    get(this: WithRecord) {
      return this[RECORD].storage.size;
    },
    enumerable: true,
  },
  // The record makes each observable once.
  all$: {
    get(this: WithRecord) {
      return this[RECORD].all$();
    },
    enumerable: true,
  },
  latest$: {
    get(this: WithRecord) {
      return this[RECORD].latest$();
    },
    enumerable: true,
  },
  changes$: {
    get(this: WithRecord) {
      return this[RECORD].changes$();
    },
    enumerable: true,
  },
};

/**
 * Checks and adds run-time middleware (every kind to the session, or reducer middleware to
 * `record`); returns the disposer of all of it. Everything is checked before anything is added.
 */
export function useMiddleware(core: SessionCore, record: SliceRecord<any> | undefined, args: readonly unknown[]): () => void {
  if (core.disposed) throw new SessionDisposedError('add middleware');
  // The local view of a shared log (forwarding since it opened): one process's middleware would
  // make it reduce the log differently from the others.
  if (core.forward !== undefined) throw new UnsupportedOnSharedSessionError(record === undefined ? 'use' : 'slice(def).use');
  const used = sortMiddleware(args, record === undefined ? 'session' : 'slice');
  // The pipelines first: a store without their runtime refuses the call before anything is added.
  const stack = used.events.length + used.operators.length > 0 ? (core.middleware ??= pipelineLayer().stack(core, [], [])) : undefined;
  const removeReducers = used.reducers.length > 0 ? core.registry.addMiddleware(record, used.reducers) : undefined;
  const removePipeline = stack?.add(used.events, used.operators);
  return () => {
    removeReducers?.();
    removePipeline?.();
  };
}

/** The public accessor of one slice (made once per slice, on first `session.slice(def)`). */
export function sliceHandle<TItem>(core: SessionCore, record: SliceRecord<TItem>): SliceHandle<TItem> {
  const storage = record.storage;
  const name = record.def.name;
  const handle: Omit<SliceHandle<TItem>, 'version' | 'isEmpty' | 'size' | 'all$' | 'latest$' | 'changes$'> & WithRecord = {
    [RECORD]: record,
    name,
    latest: () => storage.latest(),
    all: () => storage.all(),
    where: (predicate) => storage.view().where(predicate),
    at: (index) => storage.view().at(index),
    use: (...middleware) => useMiddleware(core, record, middleware),
    // Convenience writes: each is one audited library event (all mutations go through dispatch).
    seed(items) {
      core.dispatchEnvelope(core.acceptSliceCommand(SliceSeeded.type, { slice: name, items }));
    },
    clear() {
      core.dispatchEnvelope(core.acceptSliceCommand(SliceCleared.type, { slice: name }));
    },
    append(...items) {
      core.dispatchEnvelope(core.acceptSliceCommand(SliceAppended.type, { slice: name, items }));
    },
    replaceLatest(item) {
      core.dispatchEnvelope(core.acceptSliceCommand(SliceLatestReplaced.type, { slice: name, item }));
    },
    replaceLatestBy(key, item) {
      core.dispatchEnvelope(core.acceptSliceCommand(SliceLatestReplaced.type, { slice: name, item, key }));
    },
    register(creator, reducer, reducerName) {
      if (core.disposed) throw new SessionDisposedError('register a reducer');
      if (core.forward !== undefined) throw new UnsupportedOnSharedSessionError('slice(def).register');
      return core.registry.addReducer(record, { eventType: creator.type, name: reducerName ?? creator.type, reducer: reducer as Reducer<TItem>, schema: creator.schema });
    },
    configure(config: SliceRuntimeConfig<TItem>) {
      if (core.forward !== undefined) throw new UnsupportedOnSharedSessionError('slice(def).configure');
      let window = config.window === undefined ? record.window : (config.window ?? undefined);
      const problem = windowPolicyProblem(window);
      if (problem !== undefined) throw new InvalidWindowError('(given)', `slice ${quote(record.def.name)}: ${problem}`);
      if (config.eviction !== undefined) {
        if (window === undefined) {
          throw new InvalidWindowError('(none)', !DEV ? codedMessage('E43', `${quote(record.def.name)} ${quote(config.eviction.description)}`) : `slice ${quote(record.def.name)} has no window for eviction ${quote(config.eviction.description)} to choose from. Pass configure({ window, eviction }).`);
        }
        window = withEviction(window, config.eviction);
      }
      record.window = window;
      // A snapshot's direct restore checks the windows again (see `SessionSnapshots.windowChanges`).
      if (core.snapshots !== undefined) core.snapshots.windowChanges++;
    },
  };
  return withAccessors<SliceHandle<TItem>>(handle, HANDLE_ACCESSORS);
}
