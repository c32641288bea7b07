import type { MachineEvent } from './machine-event.js';

/**
 * A pending delayed send, held in the snapshot until it fires or is cancelled.
 * `dueAtMs` is absolute time on the host's clock (`scheduler.now()` when the send ran plus
 * its delay); `seq` orders sends due at the same time.
 */
export interface DelayedSend {
  readonly sendId: string;
  readonly event: MachineEvent;
  readonly dueAtMs: number;
  readonly seq: number;
  /** True when the send named no id: `sendId` is the generated `send.<n>` (SCXML 5.10.1: `_event.sendid` stays blank). */
  readonly sendIdGenerated?: boolean;
}

/**
 * The whole state of a running machine between macrosteps, as plain JSON data: store it in
 * a slice, serialise it, restore it into an actor or pass it back to `transition()`.
 *
 * @remarks The queues are always empty between macrosteps, so they are not part of it.
 */
export interface MachineSnapshot<TContext = unknown, TStateId extends string = string> {
  /** Name of the machine definition this snapshot belongs to. */
  readonly machine: string;
  /** All active state ids in document order. */
  readonly configuration: readonly TStateId[];
  /** The active atomic and final states, in document order. */
  readonly basicConfiguration: readonly TStateId[];
  readonly context: TContext;
  /** True once a top-level final state was entered; the machine then ignores events. */
  readonly done: boolean;
  /** The `output` of the top-level final state, when `done`. */
  readonly output?: unknown;
  /** Recorded history per history state id (SCXML 3.10). */
  readonly historyValue: { readonly [historyId: string]: readonly TStateId[] };
  /** Pending delayed sends, ordered by due time. */
  readonly delayed: readonly DelayedSend[];
  /** Counter for generated send ids (`send.<n>`) and send ordering. */
  readonly sendSeq: number;
}
