/**
 * An event a machine processes: a name (`type`) and optional plain-data `payload`.
 * Sending a string `'x'` is shorthand for `{ type: 'x' }`.
 */
export interface MachineEvent<TType extends string = string> {
  readonly type: TType;
  readonly payload?: unknown;
}

/** Where an event came from, as SCXML's `_event.type` reports it (SCXML 5.10.1). */
export type MachineEventKind = 'external' | 'internal' | 'platform';

/**
 * Opaque data an action produces for the host (a session) to run later. rxslice never
 * interprets it; it is collected in {@link TransitionResult.effects} in execution order.
 */
export interface MachineEffect {
  readonly type: string;
  readonly payload?: unknown;
}

/** An event together with its origin, as it sits on a queue during a macrostep. */
export interface QueuedEvent {
  readonly event: MachineEvent;
  readonly kind: MachineEventKind;
  readonly sendId?: string;
  /** True when the send named no id (neither `id` nor `storeId`): `sendId` was generated for bookkeeping only. */
  readonly sendIdGenerated?: boolean;
}

/** Normalises the `send('x')` shorthand to an event object. */
export function toMachineEvent<TType extends string>(event: TType | MachineEvent<TType>): MachineEvent<TType> {
  return typeof event === 'string' ? { type: event } : event;
}
