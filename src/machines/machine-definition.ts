import type { MachineAction } from './actions.js';
import type { InvalidTransitionPolicy } from './machine-config.js';
import type { StateNode } from './state-node.js';

/**
 * A validated, normalised machine declaration (what {@link defineMachine} and
 * {@link scxml!fromSCXML | fromSCXML} return). Inert: it holds no running state, only the tree and the guard
 * and action functions. The type parameters carry the context type, the event types the
 * machine accepts and its state ids, so `send`, `matches` and targets are checked.
 */
export interface MachineDefinition<TContext = unknown, TEventType extends string = string, TStateId extends string = string> {
  readonly name: string;
  readonly root: StateNode;
  /** Every state by id (the root is under its reserved id `(machine)`). */
  readonly states: ReadonlyMap<string, StateNode>;
  /** All state ids in document order (the root excluded). */
  readonly stateIds: readonly TStateId[];
  readonly invalidTransitions: InvalidTransitionPolicy;
  readonly maxMicrosteps: number;
  /** Builds a fresh initial context. */
  readonly initialContext: () => TContext;
  readonly startActions: readonly MachineAction<unknown>[];
  /**
   * The event types the machine declares with `events: [creators]` (empty when none), in order.
   * Together with its transitions' descriptors they are the events the machine *names*: in a
   * session, a named event that enables no transition (or arrives once the machine is done)
   * follows `invalidTransitions`.
   */
  readonly events: readonly string[];
  /** Phantom member carrying the event types; never set at run time. */
  readonly __events?: TEventType;
}

/** Context type of a definition. */
export type ContextOf<TDef> = TDef extends MachineDefinition<infer C, string, string> ? C : never;
/** Event type names a definition accepts. */
export type EventTypeOf<TDef> = TDef extends MachineDefinition<unknown, infer E, string> ? E : never;
/** State ids of a definition. */
export type StateIdOf<TDef> = TDef extends MachineDefinition<unknown, string, infer S> ? S : never;
