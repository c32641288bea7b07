import type { MachineEffect, MachineEvent, MachineEventKind } from './machine-event.js';
import type { MachineSlices } from './machine-slices.js';

/**
 * What guards and actions receive: the context as it is at that point of the microstep,
 * the event being processed (SCXML's `_event`), an `inState` test (SCXML's `In()`) and a
 * read-only view of the session's slices.
 *
 * @remarks `TEvent` is the event's type: under an `on` key named after a creator listed in
 * the machine's `events` (see {@link setupMachine}), `Event<type, payload>` of that creator;
 * elsewhere (`entry`, `exit`, `always`, descriptors such as `'error.*'`) a {@link MachineEvent}
 * with an `unknown` payload.
 */
export interface ActionArgs<TContext, TEvent = MachineEvent> {
  readonly context: TContext;
  readonly event: TEvent;
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
  /**
   * The session's slices, read-only, as committed before this event (an installed machine
   * decides before the slices' reducers run). Outside a session: the `slices` option of
   * `transition()` / `createMachineActor()`, else every read throws `MachineSlicesUnavailableError`.
   */
  readonly slices: MachineSlices;
}

/**
 * A transition guard (SCXML `cond`). A throwing guard counts as false and raises `error.execution`.
 * Type a guard written outside the config with the event it guards:
 * `const stepExists: Guard<PlanContext, InferEvent<typeof UpdateStep>> = ({ event, slices }) => ...`.
 */
export type Guard<TContext, TEvent = MachineEvent> = (args: ActionArgs<TContext, TEvent>) => boolean;

type ValueOrFn<T, TContext, TEvent = MachineEvent> = T | ((args: ActionArgs<TContext, TEvent>) => T);

/** Shallow-merges the returned partial context (SCXML `<assign>`). */
export interface AssignAction<TContext, TEvent = MachineEvent> {
  readonly kind: 'assign';
  readonly update: (args: ActionArgs<TContext, TEvent>) => Partial<TContext>;
}
/** Puts an event on the internal queue (SCXML `<raise>`). */
export interface RaiseAction<TContext, TEvent = MachineEvent> {
  readonly kind: 'raise';
  readonly event: ValueOrFn<MachineEvent, TContext, TEvent>;
}
/** Sends an event to the machine itself: delayed on the scheduler, or at once onto the external queue. */
export interface SendAction<TContext, TEvent = MachineEvent> {
  readonly kind: 'send';
  readonly event: ValueOrFn<MachineEvent, TContext, TEvent>;
  readonly delayMs?: ValueOrFn<number, TContext, TEvent>;
  readonly id?: ValueOrFn<string, TContext, TEvent>;
  /** Stores the (possibly generated) send id in the context (SCXML `idlocation`). */
  readonly storeId?: (args: ActionArgs<TContext, TEvent>, sendId: string) => object;
}
/** Cancels a pending delayed send by id (SCXML `<cancel>`). */
export interface CancelAction<TContext, TEvent = MachineEvent> {
  readonly kind: 'cancel';
  readonly sendId: ValueOrFn<string, TContext, TEvent>;
}
/** Emits an opaque effect for the host to run later. */
export interface EffectAction<TContext, TEvent = MachineEvent> {
  readonly kind: 'effect';
  readonly effect: ValueOrFn<MachineEffect, TContext, TEvent>;
}
/** Records a log line in the transition result (SCXML `<log>`). */
export interface LogAction<TContext, TEvent = MachineEvent> {
  readonly kind: 'log';
  readonly label: string | undefined;
  readonly value: ValueOrFn<unknown, TContext, TEvent>;
}
/**
 * A block of executable content: an error inside stops the rest of the block only and
 * raises `error.execution` (SCXML 4.9). Each `entry`/`exit`/transition action list is a block.
 */
export interface BlockAction<TContext, TEvent = MachineEvent> {
  readonly kind: 'block';
  readonly actions: readonly MachineAction<TContext, TEvent>[];
}
/** A dynamic action: runs with the current args and may return further actions to run in place. */
export type DynamicAction<TContext, TEvent = MachineEvent> = (
  args: ActionArgs<TContext, TEvent>,
) => void | MachineAction<TContext, TEvent> | readonly MachineAction<TContext, TEvent>[];

/** Everything that may appear in `entry`, `exit` or a transition's `actions`. */
export type MachineAction<TContext, TEvent = MachineEvent> =
  | AssignAction<TContext, TEvent>
  | RaiseAction<TContext, TEvent>
  | SendAction<TContext, TEvent>
  | CancelAction<TContext, TEvent>
  | EffectAction<TContext, TEvent>
  | LogAction<TContext, TEvent>
  | BlockAction<TContext, TEvent>
  | DynamicAction<TContext, TEvent>;

/**
 * Updates the context by shallow-merging the partial returned by `update` (SCXML 5.4 `<assign>`).
 * The context must stay plain JSON data; return new objects rather than mutating.
 *
 * @remarks In a machine made with {@link setupMachine}, `context` and `event` are typed from
 * where the action is written (no type arguments); with plain `defineMachine`, write
 * `assign<MyContext>(...)`.
 * @example
 * ```ts
 * entry: [assign(({ context }) => ({ attempts: context.attempts + 1 }))]
 * ```
 */
export function assign<TContext, TEvent = MachineEvent>(update: (args: ActionArgs<TContext, TEvent>) => Partial<TContext>): AssignAction<TContext, TEvent> {
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
export function raise<TContext, TEvent = MachineEvent>(event: string | ValueOrFn<MachineEvent, TContext, TEvent>): RaiseAction<TContext, TEvent> {
  return { kind: 'raise', event: typeof event === 'string' ? { type: event } : event };
}

/** Options of {@link send}. */
export interface SendOptions<TContext, TEvent = MachineEvent> {
  /** Delay in ms on the actor's scheduler. Omitted or 0: the event goes to the external queue at once. */
  readonly delayMs?: ValueOrFn<number, TContext, TEvent>;
  /** Send id for {@link cancel}; generated (`send.<n>`) when omitted. */
  readonly id?: ValueOrFn<string, TContext, TEvent>;
  readonly storeId?: (args: ActionArgs<TContext, TEvent>, sendId: string) => object;
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
export function send<TContext, TEvent = MachineEvent>(
  event: string | ValueOrFn<MachineEvent, TContext, TEvent>,
  options: SendOptions<TContext, TEvent> = {},
): SendAction<TContext, TEvent> {
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
export function cancel<TContext, TEvent = MachineEvent>(sendId: ValueOrFn<string, TContext, TEvent>): CancelAction<TContext, TEvent> {
  return { kind: 'cancel', sendId };
}

/** A fixed effect payload (plain data); a function instead computes it from the action's args. */
export type EffectPayload = string | number | boolean | null | readonly unknown[] | { readonly [key: string]: unknown };

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
export function effect<TContext, TEvent = MachineEvent>(
  type: string,
  payload?: EffectPayload | ((args: ActionArgs<TContext, TEvent>) => unknown),
): EffectAction<TContext, TEvent> {
  return {
    kind: 'effect',
    effect: (args) => ({ type, payload: typeof payload === 'function' ? (payload as (a: ActionArgs<TContext, TEvent>) => unknown)(args) : payload }),
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
export function log<TContext, TEvent = MachineEvent>(value: ValueOrFn<unknown, TContext, TEvent>, label?: string): LogAction<TContext, TEvent> {
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
export function block<TContext, TEvent = MachineEvent>(actions: readonly MachineAction<TContext, TEvent>[]): BlockAction<TContext, TEvent> {
  return { kind: 'block', actions };
}
