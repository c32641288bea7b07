import type { Guard, MachineAction } from './actions.js';
import type { ActionArgs } from './actions.js';

/** What to do with an external event that enables no transition. */
export type InvalidTransitionPolicy = 'throw' | 'ignore' | 'report';

/** One action or a list of them (one block of executable content). */
export type Actions<TContext> = MachineAction<TContext> | readonly MachineAction<TContext>[];

/** One target state id or several (for parallel regions). */
export type Targets<TStateId extends string = string> = TStateId | readonly TStateId[];

/** A transition as written in the general `transitions` list (SCXML `<transition>`). */
export interface TransitionConfig<TContext = unknown, TStateId extends string = string> {
  /**
   * A name for the transition (`'start_planning'`, `'abort'`): `toMermaid` labels its arrows with
   * the name instead of the event, and explanations (`InvalidTransitionError.considered`,
   * `explainTransition`) carry it. Names need not be unique.
   */
  readonly name?: string;
  /** Space-separated event descriptors (`'a b'`, `'error.*'`, `'*'`); omit for an eventless transition. */
  readonly event?: string;
  /** Omit for a targetless transition (runs its actions, exits and enters nothing). */
  readonly target?: Targets<TStateId>;
  readonly guard?: Guard<TContext>;
  /** Label shown by `toMermaid` (default: the guard function's name, or `guard`). */
  readonly guardLabel?: string;
  readonly actions?: Actions<TContext>;
  /** `'external'` (default) or `'internal'` (SCXML 3.13: does not exit a compound source). */
  readonly type?: 'internal' | 'external';
}

/** A transition under `on` or `always`: a target shorthand, or a config without `event`. */
export type TransitionSpec<TContext = unknown, TStateId extends string = string> =
  | Targets<TStateId>
  | Omit<TransitionConfig<TContext, TStateId>, 'event'>;

/** The initial transition of a compound state (SCXML `initial` attribute or `<initial>` element). */
export type InitialSpec<TContext = unknown, TStateId extends string = string> =
  | Targets<TStateId>
  | { readonly target: Targets<TStateId>; readonly actions?: Actions<TContext> };

/**
 * One state. Its kind is `type` when given, else `compound` when it has child `states`,
 * else `atomic`. Keys of `states` are state ids and are unique in the whole machine.
 */
export interface StateConfig<TContext = unknown, TStateId extends string = string> {
  readonly type?: 'atomic' | 'compound' | 'parallel' | 'final' | 'history';
  readonly description?: string;
  /** Compound states: initial child (default: the first child in document order). */
  readonly initial?: InitialSpec<TContext, TStateId>;
  readonly states?: { readonly [id: string]: StateConfig<TContext, TStateId> };
  /** Transitions by event descriptor; document order is key order, then array order. */
  readonly on?: { readonly [descriptor: string]: TransitionSpec<TContext, TStateId> | readonly TransitionSpec<TContext, TStateId>[] };
  /** Eventless transitions, taken as soon as their guard holds (SCXML 3.13). */
  readonly always?: TransitionSpec<TContext, TStateId> | readonly TransitionSpec<TContext, TStateId>[];
  /** Transitions in explicit document order (after `on` and `always`). */
  readonly transitions?: readonly TransitionConfig<TContext, TStateId>[];
  readonly entry?: Actions<TContext> | readonly (readonly MachineAction<TContext>[])[];
  readonly exit?: Actions<TContext> | readonly (readonly MachineAction<TContext>[])[];
  /** History states: `'shallow'` (default) or `'deep'`. */
  readonly history?: 'shallow' | 'deep';
  /** History states: the default target(s) when no history is recorded (default: the parent's initial). */
  readonly target?: Targets<TStateId>;
  /** History states: actions of the default history transition. */
  readonly defaultActions?: Actions<TContext>;
  /** Final states: the `done.state.<parent>` payload (SCXML `<donedata>`), or the machine's output. */
  readonly output?: (args: ActionArgs<TContext>) => unknown;
}

/**
 * A transition written at the machine level, leaving one or several states (the seed's
 * `@transition(from_=(planning, executing, reviewing), to=failed)`): one transition per source
 * state, each appended to that state's transitions (after its `on`, `always` and `transitions`),
 * in list order. Needs an `event`: write eventless transitions under a state's `always`.
 */
export interface MachineTransitionConfig<TContext = unknown, TStateId extends string = string> extends TransitionConfig<TContext, TStateId> {
  readonly event: string;
  /** The state or states it leaves (atomic, compound or parallel states; not final or history states). */
  readonly from: Targets<TStateId>;
}

/** The root of a machine (SCXML `<scxml>`). */
export interface MachineConfig<TContext = unknown, TStateId extends string = string> {
  /** Initial context (plain JSON data) or a factory for it. */
  readonly context?: TContext | (() => TContext);
  readonly initial?: InitialSpec<TContext, TStateId>;
  readonly states: { readonly [id: string]: StateConfig<TContext, TStateId> };
  /** Transitions written beside the states, each with `from` (one or several source states) and usually a `name`. */
  readonly transitions?: readonly MachineTransitionConfig<TContext, TStateId>[];
  /** Default `'throw'`. */
  readonly invalidTransitions?: InvalidTransitionPolicy;
  /** Bound on microsteps per `transition()` call, against eventless loops. Default 10 000. */
  readonly maxMicrosteps?: number;
  /** Actions run when the machine starts, before the initial states are entered. */
  readonly startActions?: Actions<TContext>;
  /** Event creators the machine handles (types guards and actions; named events, see `MachineDefinition.events`). */
  readonly events?: readonly { readonly type: string }[];
}
