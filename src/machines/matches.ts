import type { MachineSnapshot } from './machine-snapshot.js';

/**
 * True when `stateId` is active in the snapshot (any level: atomic, compound or parallel).
 *
 * @remarks Synchronous and pure; reads `snapshot.configuration` only, so it works on a
 * snapshot held in a slice or restored from JSON.
 * @example
 * ```ts
 * matches(actor.snapshot(), 'executing'); // true
 * ```
 */
export function matches<TStateId extends string>(snapshot: MachineSnapshot<unknown, TStateId>, stateId: NoInfer<TStateId>): boolean {
  return snapshot.configuration.includes(stateId);
}
