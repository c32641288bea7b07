import type { MachineEffect, MachineEvent, MachineEventKind } from './machine-event.js';

/**
 * What guards and actions receive: the context as it is at that point of the microstep,
 * the event being processed (SCXML's `_event`), and an `inState` test (SCXML's `In()`).
 */
export interface ActionArgs<TContext> {
  readonly context: TContext;
  readonly event: MachineEvent;
  readonly eventKind: MachineEventKind;
  /** The send id of the event when it came from a `send` (SCXML `_event.sendid`). */
  readonly sendId: string | undefined;
  /**
   * True when that `send` named no id (neither `id` nor `storeId`), so `sendId` is a generated
   * `send.<n>`. SCXML leaves `_event.sendid` blank then: it is set only when the sender
   * specified an id (SCXML 5.10.1).
   */
  readonly sendIdGenerated?: boolean;
  readonly inState: (stateId: string) => boolean;
}

/** A transition guard (SCXML `cond`). A throwing guard counts as false and raises `error.execution`. */
export type Guard<TContext> = (args: ActionArgs<TContext>) => boolean;

type ValueOrFn<T, TContext> = T | ((args: ActionArgs<TContext>) => T);

/** Shallow-merges the returned partial context (SCXML `<assign>`). */
export interface AssignAction<TContext> {
  readonly kind: 'assign';
  readonly update: (args: ActionArgs<TContext>) => Partial<TContext>;
}
/** Puts an event on the internal queue (SCXML `<raise>`). */
export interface RaiseAction<TContext> {
  readonly kind: 'raise';
  readonly event: ValueOrFn<MachineEvent, TContext>;
}
/** Sends an event to the machine itself: delayed on the scheduler, or at once onto the external queue. */
export interface SendAction<TContext> {
  readonly kind: 'send';
  readonly event: ValueOrFn<MachineEvent, TContext>;
  readonly delayMs?: ValueOrFn<number, TContext>;
  readonly id?: ValueOrFn<string, TContext>;
  /** Stores the (possibly generated) send id in the context (SCXML `idlocation`). */
  readonly storeId?: (args: ActionArgs<TContext>, sendId: string) => object;
}
/** Cancels a pending delayed send by id (SCXML `<cancel>`). */
export interface CancelAction<TContext> {
  readonly kind: 'cancel';
  readonly sendId: ValueOrFn<string, TContext>;
}
/** Emits an opaque effect for the host to run later. */
export interface EffectAction<TContext> {
  readonly kind: 'effect';
  readonly effect: ValueOrFn<MachineEffect, TContext>;
}
/** Records a log line in the transition result (SCXML `<log>`). */
export interface LogAction<TContext> {
  readonly kind: 'log';
  readonly label: string | undefined;
  readonly value: ValueOrFn<unknown, TContext>;
}
/**
 * A block of executable content: an error inside stops the rest of the block only and
 * raises `error.execution` (SCXML 4.9). Each `entry`/`exit`/transition action list is a block.
 */
export interface BlockAction<TContext> {
  readonly kind: 'block';
  readonly actions: readonly MachineAction<TContext>[];
}
/** A dynamic action: runs with the current args and may return further actions to run in place. */
export type DynamicAction<TContext> = (
  args: ActionArgs<TContext>,
) => void | MachineAction<TContext> | readonly MachineAction<TContext>[];

/** Everything that may appear in `entry`, `exit` or a transition's `actions`. */
export type MachineAction<TContext> =
  | AssignAction<TContext>
  | RaiseAction<TContext>
  | SendAction<TContext>
  | CancelAction<TContext>
  | EffectAction<TContext>
  | LogAction<TContext>
  | BlockAction<TContext>
  | DynamicAction<TContext>;

/**
 * Updates the context by shallow-merging the partial returned by `update` (SCXML 5.4 `<assign>`).
 * The context must stay plain JSON data; return new objects rather than mutating.
 *
 * @example
 * ```ts
 * entry: [assign(({ context }) => ({ attempts: context.attempts + 1 }))]
 * ```
 */
export function assign<TContext>(update: (args: ActionArgs<TContext>) => Partial<TContext>): AssignAction<TContext> {
  return { kind: 'assign', update };
}

/**
 * Raises an event onto the internal queue: it is processed in the same macrostep, after
 * the current microstep and after eventless transitions settle (SCXML 6.4 `<raise>`).
 *
 * @example
 * ```ts
 * actions: [raise('plan/checked')]
 * ```
 */
export function raise<TContext>(event: string | ValueOrFn<MachineEvent, TContext>): RaiseAction<TContext> {
  return { kind: 'raise', event: typeof event === 'string' ? { type: event } : event };
}

/** Options of {@link send}. */
export interface SendOptions<TContext> {
  /** Delay in ms on the actor's scheduler. Omitted or 0: the event goes to the external queue at once. */
  readonly delayMs?: ValueOrFn<number, TContext>;
  /** Send id for {@link cancel}; generated (`send.<n>`) when omitted. */
  readonly id?: ValueOrFn<string, TContext>;
  readonly storeId?: (args: ActionArgs<TContext>, sendId: string) => object;
}

/**
 * Sends an event to the machine itself (SCXML 6.2 `<send>` with no target). With `delayMs`
 * it becomes a pending delayed send held in the snapshot (`snapshot.delayed`) and fires
 * on the scheduler; without, it goes to the external queue and is processed as its own
 * macrostep right after the current one, in the same `transition()` call.
 *
 * @example
 * ```ts
 * entry: [send('agent/timedOut', { delayMs: 30_000, id: 'timeout' })],
 * exit: [cancel('timeout')],
 * ```
 */
export function send<TContext>(
  event: string | ValueOrFn<MachineEvent, TContext>,
  options: SendOptions<TContext> = {},
): SendAction<TContext> {
  return { kind: 'send', event: typeof event === 'string' ? { type: event } : event, ...options };
}

/**
 * Cancels a pending delayed send by its id; unknown ids are ignored (SCXML 6.3 `<cancel>`).
 *
 * @example
 * ```ts
 * exit: [cancel('timeout')]
 * ```
 */
export function cancel<TContext>(sendId: ValueOrFn<string, TContext>): CancelAction<TContext> {
  return { kind: 'cancel', sendId };
}

/**
 * Emits an effect (opaque data `{ type, payload }`) into the transition result for the host
 * to run later; the machine itself never runs it.
 *
 * @example
 * ```ts
 * entry: [effect('agent/notify', ({ context }) => ({ phase: 'planning', steps: context.steps }))]
 * // result.effects: [{ type: 'agent/notify', payload: { phase: 'planning', steps: [...] } }]
 * ```
 */
export function effect<TContext>(
  type: string,
  payload?: ValueOrFn<unknown, TContext>,
): EffectAction<TContext> {
  return {
    kind: 'effect',
    effect: (args) => ({ type, payload: typeof payload === 'function' ? (payload as (a: ActionArgs<TContext>) => unknown)(args) : payload }),
  };
}

/**
 * Records `{ label, value }` in the transition result's `logs` (SCXML 5.11 `<log>`).
 *
 * @example
 * ```ts
 * entry: [log(({ context }) => context.count, 'count')] // result.logs: [{ label: 'count', value: 1 }]
 * ```
 */
export function log<TContext>(value: ValueOrFn<unknown, TContext>, label?: string): LogAction<TContext> {
  return { kind: 'log', label, value };
}

/**
 * Groups actions into one block of executable content: an error stops this block only
 * (SCXML 4.9). `entry`, `exit` and transition action lists are blocks already.
 *
 * @example
 * ```ts
 * entry: [block([assign(risky), raise('a')]), raise('b')] // 'b' is raised even if `risky` throws
 * ```
 */
export function block<TContext>(actions: readonly MachineAction<TContext>[]): BlockAction<TContext> {
  return { kind: 'block', actions };
}
