/**
 * What a machine decided about one event, as data: the transitions it considered and, for each,
 * what its guard said. Made by `explainTransition()`, carried by `InvalidTransitionError`.
 */

/**
 * How one considered transition fared (SCXML Appendix D `selectTransitions`, then
 * `removeConflictingTransitions`):
 * - `'enabled'`: its guard held (or it has none): the event takes it.
 * - `'refused'`: its guard returned `false` or `refuse(reason)`.
 * - `'threw'`: its guard threw; it counts as false (SCXML 5.9: the event would also raise
 *   `error.execution`); `reason` is the error's message.
 * - `'preempted'`: its guard held, but a transition that conflicts with it wins (a descendant
 *   source, or earlier in document order).
 */
export type TransitionVerdict = 'enabled' | 'refused' | 'threw' | 'preempted';

/** One transition that matched the event from an active state, and its verdict. */
export interface ConsideredTransition<TStateId extends string = string> {
  /** The transition's name (`name: 'request_review'`), when it has one. */
  readonly name?: string;
  /** The state it leaves (for a transition written with `from: [...]`, the one of its sources considered). */
  readonly source: TStateId;
  /** Its targets as written (history states unresolved); empty for a targetless transition. */
  readonly targets: readonly TStateId[];
  /** Its event descriptors (`['plan/stepAdded']`, `['error.*']`). */
  readonly events: readonly string[];
  /** The guard's label (its `guardLabel`, else the guard function's name, else `'guard'`); absent without a guard. */
  readonly guard?: string;
  readonly verdict: TransitionVerdict;
  /** For `'refused'`: the reason given with `refuse(reason)`, if any; for `'threw'`: the error's message; for `'preempted'`: the winner. */
  readonly reason?: string;
}

/**
 * A machine's decision about one event in one snapshot, without taking it: what
 * `explainTransition(event)` answers.
 */
export interface TransitionDecision<TStateId extends string = string> {
  readonly machine: string;
  /** The event's type. */
  readonly event: string;
  /** The active states the decision was made in, in document order. */
  readonly configuration: readonly TStateId[];
  /** True when the machine is done (in a top-level final state): it takes no event, nothing was considered. */
  readonly done: boolean;
  /** True when at least one transition is `'enabled'`: sending the event would take it (what `canTransition` answers). */
  readonly enabled: boolean;
  /**
   * Every transition whose event descriptor matches, from the active atomic states (document
   * order) up through their ancestors, until a transition is enabled on that path. Empty: no
   * active state has a transition for the event.
   */
  readonly considered: readonly ConsideredTransition<TStateId>[];
}
