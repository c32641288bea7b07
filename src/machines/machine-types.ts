import type { AnyEventCreator, Event, EventCreator } from '../events/event.js';
import type { ActionArgs, GuardResult, MachineAction } from './actions.js';
import type { InvalidTransitionPolicy } from './machine-config.js';
import type { MachineEvent } from './machine-event.js';

/**
 * Type-level helpers of {@link defineMachine} and {@link setupMachine}: infer state ids and
 * event names from a config written as a literal, check targets against the ids, and type
 * each transition's guard and actions with the event of its `on` key.
 */
export declare namespace MachineTypes {
  /** One target state id, or several (parallel regions), each one of the machine's ids `TId`. */
  type Targets<TId extends string> = TId | readonly TId[];
  /** One action or a list of actions, run in order, typed with the machine's context and the event. */
  type ActionsOf<TContext, TEvent = MachineEvent> = MachineAction<TContext, TEvent> | readonly MachineAction<TContext, TEvent>[];

  /** The event creators a machine declares (`events: [CreatePlan, AddStep]`). */
  type Creators = readonly AnyEventCreator[];

  /**
   * The event guards and actions see under the `on` key `D`: `Event<type, payload>` of the
   * declared creator whose type is `D`; a {@link MachineEvent} (payload `unknown`) for any
   * other descriptor (`'error.*'`, `'done.state.x'`, `'*'`, undeclared names).
   */
  type EventOf<D, TEvents extends Creators> = [Extract<TEvents[number], { readonly type: D }>] extends [never]
    ? MachineEvent
    : Extract<TEvents[number], { readonly type: D }> extends EventCreator<infer TType, infer TPayload>
      ? Event<TType, TPayload>
      : MachineEvent;

  /** The type names of the declared creators. */
  type TypesOf<TEvents extends Creators> = TEvents[number]['type'];

  /**
   * A transition in object form, checked: targets are machine ids, the guard and actions see the
   * event `TEvent` (see `TransitionConfig` for what each field does).
   */
  interface TransitionInput<TContext, TId extends string, TEvent = MachineEvent> {
    /** A name for the transition, shown by refusals, `explainTransition()` and `toMermaid()`. */
    readonly name?: string;
    /** Target state id(s); none: a targetless transition (actions only, no exit or entry). */
    readonly target?: Targets<TId>;
    /**
     * The transition is enabled only when this returns `true`; `false` or a `refuse(reason)`
     * blocks it (the reason is reported by refusals and `explainTransition()`), and a guard that
     * throws counts as `false` and raises `error.execution`. Pure, synchronous; must not dispatch.
     */
    readonly guard?: (args: ActionArgs<TContext, TEvent>) => GuardResult;
    /** The guard's name in refusals and diagrams (default: the guard function's name). */
    readonly guardLabel?: string;
    /** Actions run when the transition is taken, between the exits and the entries. */
    readonly actions?: ActionsOf<TContext, TEvent>;
    /** `'internal'` does not exit and re-enter a compound source state (SCXML 3.13); default external. */
    readonly type?: 'internal' | 'external';
  }
  /** A transition as a target (string or strings) or in object form. */
  type TransitionSpecInput<TContext, TId extends string, TEvent = MachineEvent> = Targets<TId> | TransitionInput<TContext, TId, TEvent>;

  /** The loose shape state configs must have before checking. */
  interface StatesInput {
    readonly [id: string]: StateInputLoose;
  }
  /** One state before checking: only the keys the inference reads (`type`, `states`, `on`, `transitions`). */
  interface StateInputLoose {
    readonly type?: 'atomic' | 'compound' | 'parallel' | 'final' | 'history';
    readonly states?: StatesInput;
    readonly on?: { readonly [descriptor: string]: unknown };
    readonly transitions?: readonly unknown[];
    readonly [key: string]: unknown;
  }

  /**
   * What an `on` entry may be. A target written as a string (or strings) is checked against the
   * ids alone: intersected with the object form, an unknown id would otherwise still type-check.
   */
  type OnValue<TWritten, TContext, TId extends string, TEvent> = TWritten extends string | readonly string[]
    ? Targets<TId>
    : TransitionSpecInput<TContext, TId, TEvent> | readonly TransitionSpecInput<TContext, TId, TEvent>[];

  /** One transition or a list of them (tried in order) under an `on` key. */
  type SpecsOf<TContext, TId extends string, TEvent> = TransitionSpecInput<TContext, TId, TEvent> | readonly TransitionSpecInput<TContext, TId, TEvent>[];
  /** Descriptors that name no declared creator: platform events, prefixes, the wildcard. */
  type OtherDescriptor = '*' | 'error' | 'done' | `error.${string}` | `done.${string}` | `${string}.*` | `${string} ${string}`;
  /**
   * The `on` record: without declared events, any descriptor with an untyped event; with them,
   * each declared type with its typed event, plus the other descriptors.
   */
  type OnInput<TContext, TId extends string, TEvents extends Creators> = [TEvents[number]] extends [never]
    ? { readonly [descriptor: string]: SpecsOf<TContext, TId, MachineEvent> }
    : { readonly [D in TypesOf<TEvents> | OtherDescriptor]?: SpecsOf<TContext, TId, EventOf<D, TEvents>> };

  /** The `on` record of a state as written, or any record when the state has none. */
  type OnOf<TState> = TState extends { readonly on: infer O } ? O : { readonly [descriptor: string]: unknown };

  /** One state, checked against the machine's ids and context; `TState` is the state as written. */
  interface StateInput<TContext, TId extends string, TState, TEvents extends Creators = []> {
    readonly type?: 'atomic' | 'compound' | 'parallel' | 'final' | 'history';
    readonly description?: string;
    readonly initial?: Targets<TId> | { readonly target: Targets<TId>; readonly actions?: ActionsOf<TContext> };
    readonly states?: CheckedStates<TContext, TId, ChildrenOf<TState>, TEvents>;
    readonly on?: OnInput<TContext, TId, TEvents>;
    readonly always?: TransitionSpecInput<TContext, TId> | readonly TransitionSpecInput<TContext, TId>[];
    readonly transitions?: readonly (TransitionInput<TContext, TId> & { readonly event?: string })[];
    readonly entry?: ActionsOf<TContext>;
    readonly exit?: ActionsOf<TContext>;
    readonly history?: 'shallow' | 'deep';
    readonly target?: Targets<TId>;
    readonly defaultActions?: ActionsOf<TContext>;
    /**
     * Final states: computes the `done.state.<parent>` event's payload (SCXML `<donedata>`), or
     * the machine's output for a top-level final state, when the state is entered. Pure; what it
     * throws raises `error.execution` and the payload is `undefined`.
     */
    readonly output?: (args: ActionArgs<TContext>) => unknown;
  }

  /** The `states` record of a state as written, `unknown` for an atomic state. */
  type ChildrenOf<T> = T extends { readonly states: infer S } ? S : unknown;

  /** The states record with every target narrowed to the machine's ids. */
  type CheckedStates<TContext, TId extends string, TStates, TEvents extends Creators = []> = {
    readonly [K in keyof TStates]: StateInput<TContext, TId, TStates[K], TEvents>;
  };

  /** Every state id declared anywhere in the tree. */
  type StateIdsOf<TStates> = TStates extends StatesInput
    ? { [K in keyof TStates & string]: K | StateIdsOf<ChildrenOf<TStates[K]>> }[keyof TStates & string]
    : never;

  /**
   * The event names an SCXML event descriptor accepts: `'*'` any name, `'a.*'` any name with the
   * prefix `a.`, `'a b'` either, otherwise the name itself.
   */
  type DescriptorEvent<D extends string> = D extends '*'
    ? string
    : D extends `${infer P}.*`
      ? `${P}.${string}`
      : D extends `${infer A} ${infer B}`
        ? DescriptorEvent<A> | DescriptorEvent<B>
        : D;
  /** The event names of a `transitions` list, from each entry's `event` descriptor. */
  type ListEvents<T> = T extends readonly { readonly event?: infer E }[] ? (E extends string ? DescriptorEvent<E> : never) : never;

  /** Event names accepted by the machine: the `on` keys and `transitions` events of every state. */
  type EventsOf<TStates> = TStates extends StatesInput
    ? {
        [K in keyof TStates & string]:
          | (TStates[K] extends { readonly on: infer O } ? DescriptorEvent<keyof O & string> : never)
          | (TStates[K] extends { readonly transitions: infer L } ? ListEvents<L> : never)
          | EventsOf<ChildrenOf<TStates[K]>>;
      }[keyof TStates & string]
    : never;

  /** A machine-level transition for the event descriptor `D`: `from` and targets checked against the ids, guard and actions typed with `D`'s event. */
  interface MachineTransitionOf<TContext, TId extends string, D extends string, TEvent> extends TransitionInput<TContext, TId, TEvent> {
    readonly event: D;
    readonly from: Targets<TId>;
  }
  /**
   * What the machine-level `transitions` list holds: without declared events, any event name
   * (untyped event); with them, a declared type (its typed event) or another kind of descriptor.
   */
  type MachineTransitionInput<TContext, TId extends string, TEvents extends Creators> = [TEvents[number]] extends [never]
    ? MachineTransitionOf<TContext, TId, string, MachineEvent>
    : { [D in TypesOf<TEvents>]: MachineTransitionOf<TContext, TId, D, EventOf<D, TEvents>> }[TypesOf<TEvents>] | MachineTransitionOf<TContext, TId, OtherDescriptor, MachineEvent>;
  /**
   * The machine-level `transitions` list. With declared events, each `event` is one of them (or
   * another kind of descriptor) and guards see it typed; without, the event names are inferred
   * into `TTransitionEvent` so that the definition accepts them.
   */
  type TransitionsInput<TContext, TId extends string, TEvents extends Creators, TTransitionEvent extends string> = [TEvents[number]] extends [never]
    ? readonly (MachineTransitionOf<TContext, TId, string, MachineEvent> & { readonly event: TTransitionEvent })[]
    : readonly MachineTransitionInput<TContext, TId, TEvents>[];
  /**
   * Event names the machine-level `transitions` accept, from their `event` descriptors (inferred
   * apart from the list itself, whose guards are typed from the context: inferring the whole list
   * would leave those guards untyped).
   */
  type TransitionEventsOf<TTransitionEvent extends string> = [TTransitionEvent] extends [never] ? never : DescriptorEvent<TTransitionEvent>;

  /** The options every machine config may carry besides its states. */
  interface MachineOptionsInput<TContext> {
    readonly invalidTransitions?: InvalidTransitionPolicy;
    readonly maxMicrosteps?: number;
    readonly startActions?: ActionsOf<NoInfer<TContext>>;
  }

  /** The config argument of {@link defineMachine}. */
  interface MachineInput<TContext, TStates, TEvents extends Creators = [], TTransitionEvent extends string = never> extends MachineOptionsInput<TContext> {
    /**
     * The initial context, or a function making it (called once per start, so every actor gets
     * a fresh object). Its type is the machine's `TContext`.
     */
    readonly context?: TContext | (() => TContext);
    /** The event creators the machine handles: types each `on` key's guard and actions with its payload. */
    readonly events?: TEvents;
    readonly initial?: NoInfer<Targets<StateIdsOf<TStates>>> | { readonly target: NoInfer<Targets<StateIdsOf<TStates>>>; readonly actions?: ActionsOf<NoInfer<TContext>> };
    readonly states: TStates & CheckedStates<NoInfer<TContext>, NoInfer<StateIdsOf<TStates>>, TStates, NoInfer<TEvents>> & NoInfer<DeclaredOnly<TStates, TEvents>>;
    /** Transitions written beside the states (`{ name, event, from, target, guard }`); see `MachineTransitionConfig`. */
    readonly transitions?: TransitionsInput<NoInfer<TContext>, NoInfer<StateIdsOf<TStates>>, NoInfer<TEvents>, TTransitionEvent>;
  }

  /**
   * The config argument of `setupMachine(...).defineMachine`: context and events were fixed by
   * the setup, so `assign(...)` and guards are typed without type arguments.
   */
  interface SetupMachineInput<TContext, TStates, TEvents extends Creators, TTransitionEvent extends string = never> extends MachineOptionsInput<TContext> {
    readonly initial?: NoInfer<Targets<StateIdsOf<TStates>>> | { readonly target: NoInfer<Targets<StateIdsOf<TStates>>>; readonly actions?: ActionsOf<TContext> };
    readonly states: TStates & CheckedStates<TContext, NoInfer<StateIdsOf<TStates>>, TStates, TEvents> & NoInfer<DeclaredOnly<TStates, TEvents>>;
    /** Transitions written beside the states (`{ name, event, from, target, guard }`); see `MachineTransitionConfig`. */
    readonly transitions?: TransitionsInput<TContext, NoInfer<StateIdsOf<TStates>>, TEvents, TTransitionEvent>;
  }

  /**
   * The declared event types, each in single quotes, joined with `, ` in declaration order
   * (`'timer/started', 'timer/stopped'`). A list whose type is not a tuple gives its types' union.
   */
  type DeclaredList<TEvents extends Creators> = TEvents extends readonly [infer THead extends AnyEventCreator, ...infer TRest extends Creators]
    ? TRest extends readonly [] ? `'${THead['type']}'` : `'${THead['type']}', ${DeclaredList<TRest>}`
    : `'${TypesOf<TEvents>}'`;
  /**
   * The compile error of an `on` key `D` outside the declared events: for `'timer/startd'`,
   * `Unknown event 'timer/startd': the declared events are 'timer/started', 'timer/stopped' (add its creator to events, or fix the key)`.
   */
  type UnknownEventMessage<D extends string, TEvents extends Creators> =
    `Unknown event '${D}': the declared events are ${DeclaredList<TEvents>} (add its creator to events, or fix the key)`;

  /** True when `D` names a declared event or is a descriptor of another kind (platform, prefix, wildcard). */
  type IsKnownDescriptor<D, TEvents extends Creators> = D extends TypesOf<TEvents> | OtherDescriptor ? true : false;
  /**
   * With declared events, an `on` key that is neither a declared type nor another kind of
   * descriptor is an error (a typo would otherwise be a transition that never fires).
   */
  type DeclaredOnly<TStates, TEvents extends Creators> = [TEvents[number]] extends [never] ? unknown : DeclaredOnlyStates<TStates, TEvents>;
  /**
   * {@link MachineTypes.DeclaredOnly} for one states record, recursing into child states. The
   * value of an unknown `on` key must also be an object whose one property is named by
   * {@link MachineTypes.UnknownEventMessage}; no target or transition is, so the compile error
   * names the key and the declared events, for a string target as for an object:
   *
   * `Type '"running"' is not assignable to type '"running" & { readonly "Unknown event 'timer/startd': the declared events are 'timer/started', 'timer/stopped' (add its creator to events, or fix the key)": never; }'`.
   *
   * (The object is written out here, not named, so that TypeScript prints the message rather
   * than an alias; a plain string message intersected with a string target reduced to `never`,
   * and the error said only `Type 'string' is not assignable to type 'never'`.)
   */
  type DeclaredOnlyStates<TStates, TEvents extends Creators> = {
    readonly [K in keyof TStates]: (TStates[K] extends { readonly on: infer O }
      ? { readonly on?: { readonly [D in keyof O]: IsKnownDescriptor<D, TEvents> extends true ? unknown : { readonly [TMessage in UnknownEventMessage<D & string, TEvents>]: never } } }
      : unknown) &
      (TStates[K] extends { readonly states: infer S } ? { readonly states?: DeclaredOnlyStates<S, TEvents> } : unknown);
  };
}
