import type { AnyEffectDef, EffectDef } from '../effects/define-effect.js';
import { InvalidMachineActionError } from './errors.js';
import type { MachineEffect, MachineEvent, MachineEventKind } from './machine-event.js';
import type { MachineSlices } from './machine-slices.js';
import { clip, quote } from '../internal/quote';

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
  /**
   * SCXML's `In(stateId)`: true when the state with this id is in the current configuration
   * (the active states at this point of the microstep); false for an unknown id, never throws.
   * @example
   * ```ts
   * guard: ({ inState }) => inState('review.approved')
   * ```
   */
  readonly inState: (stateId: string) => boolean;
  /**
   * The session's slices, read-only, as committed before this event (an installed machine
   * decides before the slices' reducers run). Outside a session: the `slices` option of
   * `transition()` / `createMachineActor()`, else every read throws `MachineSlicesUnavailableError`.
   */
  readonly slices: MachineSlices;
}

/**
 * What a guard returns to refuse a transition and say why: made by {@link refuse}. It counts as
 * `false` (SCXML `cond` is boolean); the reason is carried by `InvalidTransitionError.considered`,
 * `explainTransition()` and `availableTransitions({ includeBlocked: true })`.
 */
export interface GuardRefusal {
  readonly refused: true;
  /** Why the guard refused, in words for a person (`'Must provide at least one step'`). */
  readonly reason: string;
}

/**
 * What a guard returns: `true` lets the transition be taken; `false` or a {@link GuardRefusal}
 * (from {@link refuse}) refuses it. Any other value counts as `false`.
 */
export type GuardResult = boolean | GuardRefusal;

/**
 * A transition guard (SCXML `cond`). Returns `true` to enable its transition, `false` or
 * {@link refuse}`(reason)` to refuse it. A throwing guard counts as false and raises `error.execution`.
 * Type a guard written outside the config with the event it guards:
 * `const stepExists: Guard<PlanContext, InferEvent<typeof UpdateStep>> = ({ event, slices }) => ...`.
 */
export type Guard<TContext, TEvent = MachineEvent> = (args: ActionArgs<TContext, TEvent>) => GuardResult;

/**
 * A guard's refusal with its reason. Return it from a guard instead of `false` so a refusal
 * explains itself: `InvalidTransitionError`'s message and `considered`, `explainTransition()` and
 * `availableTransitions({ includeBlocked: true })` carry the reason beside the guard's name.
 *
 * @remarks The W3C SCXML `cond` is a boolean expression and XState 5 guards return booleans: a
 * refusal is `false` to the algorithm (transition selection, conflicts and document order are
 * unchanged); only the explanation reads the reason. Frozen plain data.
 * @param reason - Non-empty text for a person, e.g. `'Must provide at least one step'`.
 * @throws TypeError when `reason` is not a non-empty string.
 * @example
 * ```ts
 * guard: function hasSteps({ event }) {
 *   return event.payload.steps.length > 0 || refuse('Must provide at least one step');
 * }
 * // dispatching it with no steps throws InvalidTransitionError:
 * // Machine "plans": guard "hasSteps" refused "plan/created" in [idle]: Must provide at least one step. ...
 * ```
 */
export function refuse(reason: string): GuardRefusal {
  if (typeof reason !== 'string' || reason.length === 0) throw new TypeError(`refuse() needs the reason as a non-empty string, got ${clip(JSON.stringify(reason))}.`);
  return Object.freeze({ refused: true, reason });
}

/** True when a guard's result is a {@link GuardRefusal} (a refusal with a reason). */
export const isGuardRefusal = (value: unknown): value is GuardRefusal =>
  value !== null && typeof value === 'object' && (value as { refused?: unknown }).refused === true && typeof (value as { reason?: unknown }).reason === 'string';

/**
 * A value given as is, or computed when the action runs from the machine's context and the
 * event being processed (`send(Ping, { delayMs: ({ context }) => context.backoffMs })`).
 * The function must be pure; what it throws is handled as if the action itself had thrown.
 */
export type ValueOrFn<T, TContext, TEvent = MachineEvent> = T | ((args: ActionArgs<TContext, TEvent>) => T);

/** Shallow-merges the returned partial context (SCXML `<assign>`). */
export interface AssignAction<TContext, TEvent = MachineEvent> {
  readonly kind: 'assign';
  /**
   * Returns the fields to change; they are shallow-merged into the context (`{ ...context, ...patch }`).
   * Must return an object: anything else throws a `TypeError`, which (like any action error) stops
   * the rest of the block and raises `error.execution`.
   */
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
  /**
   * Stores the send id (given or generated) in the context, SCXML's `idlocation`: called when the
   * send runs with the action's arguments and the id; the object it returns is shallow-merged into
   * the context before the event is queued, so a later {@link cancel} can read the id from there.
   * @example
   * ```ts
   * send('agent/timedOut', { delayMs: 30_000, storeId: (_args, sendId) => ({ timeoutId: sendId }) })
   * ```
   */
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

/** Any effect declaration made by `defineEffect` (the machine's typed effect form). */
type AnyEffectCreator = AnyEffectDef;

/**
 * The payload argument of {@link effect}: for a `defineEffect` creator, its payload type (or a
 * function of the action's args returning it), none for a creator without payload; for an
 * effect type string, any plain data or a function.
 */
export type EffectPayloadArgs<TEffect, TContext, TEvent = MachineEvent> = TEffect extends string
  ? [payload?: EffectPayload | ((args: ActionArgs<TContext, TEvent>) => unknown)]
  : TEffect extends EffectDef<any, infer TPayload, any>
    ? [TPayload] extends [void]
      ? []
      : [payload: TPayload | ((args: ActionArgs<TContext, TEvent>) => TPayload)]
    : never;

/**
 * Emits an effect (opaque data `{ type, payload }`) into the transition result for the host
 * to run later; the machine itself never runs it. In a session the effect goes out with the
 * committed event, to the handler registered for it (`handleEffect`).
 *
 * @remarks The typed form takes a creator made by `defineEffect`: its payload type checks the
 * second argument (a value, or a function of the action's args returning one), and the effect
 * is built by the creator. An effect type string is the untyped form (any plain-data payload).
 * Anything else, such as a plain function, is a type error, and throws at run time when
 * `effect` is called (the machine cannot be defined with it).
 * @throws {@link InvalidMachineActionError} when `effect` is neither a `defineEffect` creator
 * nor a non-empty string.
 * @example
 * ```ts
 * const PlanRequested = defineEffect('llm/planRequested', z.object({ goal: z.string() }));
 * entry: [effect(PlanRequested, ({ context }) => ({ goal: context.goal }))]
 * // result.effects: [{ type: 'llm/planRequested', payload: { goal: 'ship' } }]
 * entry: [effect('agent/notify', { phase: 'planning' })] // untyped form
 * ```
 */
export function effect<TContext, TEvent = MachineEvent, const TEffect extends string | AnyEffectCreator = string>(
  effect: TEffect,
  ...payloadArgs: EffectPayloadArgs<TEffect, TContext, TEvent>
): EffectAction<TContext, TEvent> {
  const payload = (payloadArgs as unknown[])[0];
  const compute = typeof payload === 'function' ? (payload as (a: ActionArgs<TContext, TEvent>) => unknown) : undefined;
  if (typeof effect === 'string' && effect.length > 0) {
    const type = effect;
    return { kind: 'effect', effect: (args) => ({ type, payload: compute ? compute(args) : payload }) };
  }
  const creator = effect as unknown as AnyEffectCreator;
  if (typeof creator !== 'function' || typeof creator.type !== 'string' || creator.type.length === 0 || typeof creator.options !== 'object' || creator.options === null) {
    throw new InvalidMachineActionError(
      'effect',
      `effect() takes an effect creator made by defineEffect or an effect type string, got ${describeValue(effect)}. ` +
        `Declare the effect with defineEffect('domain/verb', schema) and write effect(MyEffect, payload); to compute the payload, pass a function as the second argument: effect(MyEffect, ({ context }) => ...).`,
    );
  }
  return { kind: 'effect', effect: (args) => creator(compute ? compute(args) : payload) };
}

const describeValue = (value: unknown): string =>
  typeof value === 'function'
    ? `a plain function${value.name ? ` ${quote(value.name)}` : ''} (it has no effect type)`
    : typeof value === 'string'
      ? 'an empty string'
      : value === null
        ? 'null'
        : typeof value;

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
