import { codedMessage } from '../internal/coded-message';
import { DEV } from '../internal/dev';
import { quote } from '../internal/quote';
import type { Envelope } from '../events/envelope';
import type { StorageFactory, StorageJournal, StoredSliceDef } from '../storage/slice-storage';
import type { Session } from './session-types';

/**
 * How `createSession`'s feature methods reach a feature's code without importing it: the
 * feature's definitions (a saga from `defineSaga`, a machine from `defineMachine`) carry the
 * functions that run them under these keys, so a bundle holds sagas or statecharts only when the
 * app defines one (the core session stays small; see docs/SIZE.md). `Symbol.for`, so that two
 * copies of the library (ESM and CommonJS) still recognise each other's definitions.
 */
export const SAGA_LAYER: unique symbol = /* @__PURE__ */ Symbol.for('rxslice.layer.sagas') as never;
/** See {@link SAGA_LAYER}: the key of the effects runtime's {@link EffectsLayer}. */
export const EFFECTS_LAYER: unique symbol = /* @__PURE__ */ Symbol.for('rxslice.layer.effects') as never;
/** See {@link SAGA_LAYER}: the key of a machine definition's {@link MachineLayer}. */
export const MACHINE_LAYER: unique symbol = /* @__PURE__ */ Symbol.for('rxslice.layer.machines') as never;

/**
 * The key under which a session or store keeps its snapshot layer (`internals.extensions`), once
 * linked: by `createSession`, or by the first snapshot function called on a store (docs/SIZE.md).
 */
export const SNAPSHOT_LAYER: unique symbol = /* @__PURE__ */ Symbol.for('rxslice.layer.snapshots') as never;

/** See {@link SAGA_LAYER}: the key of a channel definition's {@link ChannelLayer}. */
export const CHANNEL_LAYER: unique symbol = /* @__PURE__ */ Symbol.for('rxslice.layer.channels') as never;

/** @internal The channel runtime a channel definition carries (`openChannel` of session/channel.ts). */
export interface ChannelLayer {
  /** Opens `def` on the session's channel table (or returns the channel of that name already open). */
  open(table: Map<string, any>, def: any, host: any): any;
}

/** @internal The saga functions a saga definition carries (those of `rxslice`'s run-saga module). */
export interface SagaLayer {
  install(session: Session, options: { readonly sagas?: readonly any[]; readonly deps?: unknown; readonly history?: any }): void;
  run(session: Session, def: any, input: unknown, options?: any): any;
  resume(session: Session, options?: any): any[];
  history(session: Session): readonly any[];
}

/** @internal The statechart functions a machine definition carries (`installMachine`, `sessionMachine`). */
export interface MachineLayer {
  install(session: Session, def: any): any;
  machine(session: Session, def: any): any;
}

/** @internal The effect functions `defineEffect` links (`installEffects`, `runEffect`, and the runtime's router). */
export interface EffectsLayer {
  install(session: Session, options: { readonly epics?: readonly any[]; readonly dependencies?: unknown }): {
    run(epic: any, options?: any): any;
    handle(def: any, handler: any): any;
  };
  runEffect(session: Session, effect: any): any;
  /** Routes the effects of a commit that arrived before the runtime was installed. */
  route(session: Session, committed: any): void;
}

/**
 * The layers linked so far in this program: `defineSaga` links the saga layer and `defineEffect`
 * the effects layer the first time they are called (a call, not a module side effect, so a
 * bundle that never defines a saga or an effect holds neither). A session finds them here for
 * what no definition is passed to (`resumeSagas()`, `sagaHistory`, effects a reducer requests).
 */
const linked: Partial<Record<symbol, object>> = {};

/** @internal Links `layer` under `key` for the sessions of this program (see `linked`); the first link stays. */
export function linkLayer(key: symbol, layer: object): void {
  if (linked[key] === undefined) linked[key] = layer;
}

/** @internal The layer linked under `key`, or undefined when no definition of that feature was made yet. */
export function linkedLayer<TLayer>(key: symbol): TLayer | undefined {
  return linked[key] as TLayer | undefined;
}

/**
 * @internal Returns `def` with `layer` under `key` (not enumerable, so the definition's own
 * fields, spreads and equality stay as they were). Call it before freezing `def`.
 */
export function withLayer<T extends object>(def: T, key: symbol, layer: object): T {
  Object.defineProperty(def, key, { value: layer });
  return def;
}

/** @internal The layer `value` carries under `key`, or undefined (not a definition, or made by hand). */
export function layerOf<TLayer>(value: unknown, key: symbol): TLayer | undefined {
  return value !== null && (typeof value === 'object' || typeof value === 'function') ? ((value as Record<symbol, TLayer | undefined>)[key] ?? undefined) : undefined;
}

/**
 * See {@link SAGA_LAYER}: the key of the event and operator middleware runtime
 * ({@link PipelineLayer}), linked by `defineMiddleware` and by `createSession`.
 */
export const PIPELINE_LAYER: unique symbol = /* @__PURE__ */ Symbol.for('rxslice.layer.pipelines') as never;

/** @internal The event and operator middleware runtime (`MiddlewareStack` of session/middleware-stack.ts). */
export interface PipelineLayer {
  stack(core: any, events: readonly any[], operators: readonly any[]): PipelineStack;
}

/** @internal What the core asks of its event and operator middleware (`MiddlewareStack`). */
export interface PipelineStack {
  /** Adds middleware after those in force; returns the function that removes exactly these. */
  add(events: readonly any[], operators: readonly any[]): () => void;
  /** Rebuilds the layers whose middleware changed (called before the next envelope enters). */
  apply(): void;
}

/**
 * @internal The linked event and operator middleware runtime.
 * @throws TypeError when none is linked: the program called neither `defineMiddleware` nor `createSession`.
 */
export function pipelineLayer(): PipelineLayer {
  const layer = linkedLayer<PipelineLayer>(PIPELINE_LAYER);
  if (layer !== undefined) return layer;
  throw new TypeError(
    !DEV
      ? codedMessage('E70', 'defineMiddleware')
      : 'Event and operator middleware need their runtime, which a store links only on request: pass them through defineMiddleware({ events, operators }) (or use createSession, which links it).',
  );
}

/**
 * See {@link SAGA_LAYER}: the key of the durable journal runtime ({@link JournalLayer}), linked by
 * `jsonl()`, by `defineDurableStorage` and by `createSession`: a memory-only store never has a
 * journal, so a store's bundle holds that runtime only when the app uses durable storage.
 */
export const JOURNAL_LAYER: unique symbol = /* @__PURE__ */ Symbol.for('rxslice.layer.journals') as never;

/** @internal The durable journal runtime (`SessionJournals` of session/journal-layer.ts). */
export interface JournalLayer {
  open(core: any): SessionJournals;
}

/** @internal What the core asks of the journals of one session (made with its first journal). */
export interface SessionJournals {
  /** The distinct journals of the session, in the order they were taken. */
  readonly list: readonly StorageJournal[];
  /** Opens `factory`'s journal (`StorageFactory.openJournal`) and takes it; released by {@link release}. */
  hold(factory: StorageFactory): void;
  /** Takes `journal` unless taken: continues after its `seq` or refuses it (`StorageAheadError`). */
  add(journal: StorageJournal, sliceName: string | undefined): void;
  /** Writes the record of `env` before its commit is visible; false when it failed (rolled back, the session failed). */
  write(env: Envelope): boolean;
  /** `SessionInternals.durableBatch`. */
  batch<TResult>(fn: () => TResult): TResult;
  /** `SessionInternals.storedItems`. */
  peek(def: StoredSliceDef<unknown>): readonly unknown[] | undefined;
  /** Releases the journals the session opened itself. Idempotent. */
  release(): void;
}

/**
 * @internal The linked durable journal runtime.
 * @throws TypeError when none is linked: the program called none of `jsonl`, `defineDurableStorage`, `createSession`.
 */
export function journalLayer(sliceName: string | undefined): JournalLayer {
  const layer = linkedLayer<JournalLayer>(JOURNAL_LAYER);
  if (layer !== undefined) return layer;
  throw new TypeError(
    !DEV
      ? codedMessage('E71', `${quote(sliceName ?? '(storage factory)')}: defineDurableStorage`)
      : `${sliceName === undefined ? 'A storage factory' : `The storage of slice ${quote(sliceName)}`} has a durable journal, whose runtime a store links only on request: pass the factory through defineDurableStorage(factory) (jsonl() and createSession link it). Nothing was opened.`,
  );
}
