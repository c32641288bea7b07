import type { Session } from './session-types';

/**
 * How `createSession`'s feature methods reach a feature's code without importing it: the
 * feature's definitions (a saga from `defineSaga`, a machine from `defineMachine`) carry the
 * functions that run them under these keys, so a bundle holds sagas or statecharts only when the
 * app defines one (the core session stays small; see docs/SIZE.md). `Symbol.for`, so that two
 * copies of the library (ESM and CommonJS) still recognise each other's definitions.
 */
export const SAGA_LAYER: unique symbol = /* @__PURE__ */ Symbol.for('rxslice.layer.sagas') as never;
/** See {@link SAGA_LAYER}: the key of a machine definition's {@link MachineLayer}. */
export const MACHINE_LAYER: unique symbol = /* @__PURE__ */ Symbol.for('rxslice.layer.machines') as never;

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
