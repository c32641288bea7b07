import { InvalidTransitionError } from './errors.js';
import { executeBlock } from './execute-content.js';
import type { InterpreterState, MachineLog } from './interpreter-state.js';
import { consideredFromRefusals } from './explain-transition.js';
import type { ConsideredTransition } from './transition-decision.js';
import { fresh, restore, snapshotConfiguration } from './restore-snapshot.js';
import type { MachineDefinition } from './machine-definition.js';
import { toMachineEvent, type MachineEffect, type MachineEvent, type QueuedEvent } from './machine-event.js';
import type { DelayedSend, MachineSnapshot } from './machine-snapshot.js';
import type { MachineSlices } from './machine-slices.js';
import { enterStates, microstep, selectTransitions } from './microstep.js';
import type { StateNode, TransitionNode } from './state-node.js';

/** What one call of {@link transition}, {@link initialTransition} or {@link advanceTime} produced. */
export interface TransitionResult<TContext = unknown, TStateId extends string = string> {
  readonly snapshot: MachineSnapshot<TContext, TStateId>;
  /** False when the (first) external event enabled no transition. */
  readonly enabled: boolean;
  /** True when at least one microstep ran. */
  readonly changed: boolean;
  /** Effects produced by actions, in execution order. */
  readonly effects: readonly MachineEffect[];
  /** Events raised onto the internal queue, in order. */
  readonly raised: readonly MachineEvent[];
  /** Delayed sends scheduled (also in `snapshot.delayed` unless already cancelled). */
  readonly sent: readonly DelayedSend[];
  /** Send ids of pending delayed sends that were cancelled. */
  readonly cancelled: readonly string[];
  readonly logs: readonly MachineLog[];
  /** Errors raised while executing content (each also raised `error.execution`) and, under policy `'report'`, the {@link InvalidTransitionError}. */
  readonly errors: readonly unknown[];
  /**
   * When the (first) external event enabled nothing: the transitions it matched from the active
   * states, each with its guard's verdict (`'refused'`, with the reason given by `refuse(reason)`,
   * or `'threw'`); empty when no active state has a transition for it, and when it was enabled.
   */
  readonly considered: readonly ConsideredTransition[];
  readonly microsteps: number;
}

/** Options of the pure transition functions. */
export interface TransitionOptions {
  /** Current time in ms on the host's clock, used for delayed sends' `dueAtMs`. Default 0. */
  readonly nowMs?: number;
  /** What guards and actions read as `slices` (default: none; a read throws `MachineSlicesUnavailableError`). */
  readonly slices?: MachineSlices;
}

/** True when the recorded history equals `recorded` (the previous snapshot's). */
function sameHistory(it: InterpreterState, recorded: Readonly<Record<string, readonly string[]>>): boolean {
  let n = 0;
  for (const [h, states] of it.historyValue) {
    const ids = recorded[h];
    if (ids === undefined || ids.length !== states.length) return false;
    for (let i = 0; i < ids.length; i++) if (ids[i] !== (states[i] as StateNode).id) return false;
    n++;
  }
  return n === Object.keys(recorded).length;
}

/**
 * The snapshot of `it`. Shares the configuration and history arrays of `previous` when they
 * did not change (a targetless transition, the common case), as snapshots are immutable.
 */
function toSnapshot(it: InterpreterState, name: string, previous?: MachineSnapshot): MachineSnapshot {
  const { configuration, basicConfiguration } = snapshotConfiguration(it, previous);
  let historyValue: Record<string, readonly string[]>;
  if (previous !== undefined && (it.historyTouched !== true || sameHistory(it, previous.historyValue))) {
    historyValue = previous.historyValue as Record<string, readonly string[]>;
  } else {
    historyValue = {};
    for (const [h, states] of it.historyValue) historyValue[h] = states.map((s) => s.id);
  }
  // Two literals rather than a spread of `output` (same keys, same order).
  return it.running
    ? { machine: name, configuration, basicConfiguration, context: it.context, done: false, historyValue, delayed: it.delayed, sendSeq: it.sendSeq }
    : { machine: name, configuration, basicConfiguration, context: it.context, done: true, output: it.output, historyValue, delayed: it.delayed, sendSeq: it.sendSeq };
}

/** Per machine tree (decided once): true when some state has an eventless transition. */
const eventlessByTree = new WeakMap<object, boolean>();

/**
 * True when some state of `tree` has an eventless transition. Without one, selecting eventless
 * transitions always finds none, so a macrostep need not look (it walks the configuration's
 * ancestors and their transitions).
 */
function hasEventless(tree: InterpreterState['tree']): boolean {
  let known = eventlessByTree.get(tree);
  if (known === undefined) {
    known = false;
    for (const state of tree.states.values()) if (state.transitions.some((t) => t.events.length === 0)) known = true;
    eventlessByTree.set(tree, known);
  }
  return known;
}

const NO_TRANSITIONS: readonly TransitionNode[] = Object.freeze([]);

/** The rest of a macrostep: eventless transitions until stable, then internal events (Appendix D mainEventLoop). */
function runToCompletion(it: InterpreterState): void {
  const eventless = hasEventless(it.tree);
  while (it.running) {
    let enabled: readonly TransitionNode[] = eventless ? selectTransitions(it, undefined) : NO_TRANSITIONS;
    if (enabled.length === 0) {
      const internal = it.internalQueue.shift();
      if (internal === undefined) break;
      it.currentEvent = internal;
      enabled = selectTransitions(it, internal);
    }
    if (enabled.length > 0) microstep(it, enabled);
  }
}

/**
 * Processes one external event as a macrostep; returns whether it enabled a transition.
 * `explain`: record the guards that refuse it (so that a refusal explains itself).
 */
function macrostep(it: InterpreterState, event: QueuedEvent, explain = true): boolean {
  if (!it.running) return false;
  it.currentEvent = event;
  it.recordRefusals = explain;
  const enabled = selectTransitions(it, event);
  it.recordRefusals = false;
  if (enabled.length > 0) microstep(it, enabled);
  runToCompletion(it);
  return enabled.length > 0;
}

/** Events the machine sent itself without delay form the external queue; each is its own macrostep. */
function drainExternalQueue(it: InterpreterState): void {
  if (it.externalQueue.length === 0) return;
  for (let next = it.externalQueue.shift(); next !== undefined && it.running; next = it.externalQueue.shift()) macrostep(it, next);
  it.externalQueue.length = 0;
}

/** Appendix D exitInterpreter: onexit of all active states in reverse document order; pending sends are dropped. */
function finish(it: InterpreterState, wasRunning: boolean): void {
  if (!wasRunning || it.running) return;
  const active = [...it.configuration].sort((a, b) => b.order - a.order);
  for (const s of active) for (const block of s.exit) executeBlock(it, block);
  it.cancelled.push(...it.delayed.map((d) => d.sendId));
  it.delayed = [];
}

function result<TContext, TStateId extends string>(
  it: InterpreterState,
  name: string,
  enabled: boolean,
  previous?: MachineSnapshot<TContext, TStateId>,
  considered: readonly ConsideredTransition[] = [],
): TransitionResult<TContext, TStateId> {
  return {
    considered,
    snapshot: toSnapshot(it, name, previous as MachineSnapshot | undefined) as MachineSnapshot<TContext, TStateId>,
    enabled,
    changed: it.microsteps > 0,
    effects: it.effects,
    raised: it.raised,
    sent: it.sent,
    cancelled: it.cancelled,
    logs: it.logs,
    errors: it.errors,
    microsteps: it.microsteps,
  };
}

/**
 * Starts a machine: builds the initial context, enters the initial configuration and runs
 * the first macrostep to completion (SCXML Appendix D `interpret`). Pure apart from what
 * guards and actions do: the same definition and options give the same result.
 *
 * @param def - The machine definition.
 * @param options - `nowMs`: the host's clock, for delayed sends.
 * @returns The first snapshot and what the start produced (effects, sends, logs, errors).
 * @throws RangeError when more than `maxMicrosteps` microsteps run (an eventless loop).
 * @example
 * ```ts
 * const { snapshot } = initialTransition(Light);
 * snapshot.configuration; // ['green']
 * ```
 */
export function initialTransition<TContext, TEventType extends string, TStateId extends string>(
  def: MachineDefinition<TContext, TEventType, TStateId>,
  options: TransitionOptions = {},
): TransitionResult<TContext, TStateId> {
  const it = fresh(def as MachineDefinition<unknown, string, string>, options.nowMs ?? 0, options.slices);
  it.context = def.initialContext();
  executeBlock(it, def.startActions);
  it.microsteps++;
  // the initial transition's domain is the root, so enterStates enters from the top
  enterStates(it, [def.root.initial!]);
  runToCompletion(it);
  drainExternalQueue(it);
  finish(it, true);
  return result(it, def.name, true);
}

/**
 * Processes one external event: selects transitions by document order, runs the microstep
 * and then the macrostep to completion (eventless transitions until stable, internal
 * events in order), then any events the machine sent itself without delay, each as its own
 * macrostep (SCXML Appendix D `mainEventLoop`).
 *
 * @remarks An event that enables no transition follows the definition's
 * `invalidTransitions` policy: `'throw'` throws, `'report'` puts the error in `errors`,
 * `'ignore'` returns the snapshot unchanged. A done machine enables nothing: every event then
 * follows the policy (the error has `done: true`).
 * @param event - `{ type, payload? }` or a type string.
 * @throws {@link InvalidTransitionError} under policy `'throw'`; {@link InvalidMachineError} when the snapshot does not fit the definition.
 * @example
 * ```ts
 * const next = transition(Light, snapshot, 'timer/elapsed');
 * next.snapshot.configuration; // ['yellow']
 * ```
 */
export function transition<TContext, TEventType extends string, TStateId extends string>(
  def: MachineDefinition<TContext, TEventType, TStateId>,
  snapshot: MachineSnapshot<TContext, TStateId>,
  event: NoInfer<TEventType> | MachineEvent<NoInfer<TEventType>>,
  options: TransitionOptions = {},
): TransitionResult<TContext, TStateId> {
  return transitionWithPolicy(def, snapshot, toMachineEvent(event as string | MachineEvent), options, def.invalidTransitions);
}

/**
 * {@link transition} under the given policy instead of the definition's (internal: a session
 * decides with `'ignore'` and applies the machine's own policy to the whole event itself).
 * `explain: false` (only with `'ignore'`): the caller does not read `considered`, which is then
 * empty (the refusing guards are not recorded).
 */
export function transitionWithPolicy<TContext, TStateId extends string>(
  def: MachineDefinition<TContext, string, TStateId>,
  snapshot: MachineSnapshot<TContext, TStateId>,
  ev: MachineEvent,
  options: TransitionOptions,
  policy: MachineDefinition['invalidTransitions'],
  explain = true,
): TransitionResult<TContext, TStateId> {
  const d = def as MachineDefinition<unknown, string, string>;
  const it = restore(d, snapshot, options.nowMs ?? 0, options.slices);
  const wasRunning = it.running;
  const enabled = macrostep(it, { event: ev, kind: 'external' }, explain || policy !== 'ignore');
  const considered = enabled ? [] : consideredFromRefusals(it.refusals);
  it.refusals = undefined;
  if (!enabled && policy !== 'ignore') {
    const error = new InvalidTransitionError(def.name, ev.type, snapshot.configuration, snapshot.done, considered);
    if (policy === 'throw') throw error;
    it.errors.push(error);
  }
  drainExternalQueue(it);
  finish(it, wasRunning);
  return result(it, def.name, enabled, snapshot, considered);
}

/**
 * Fires every pending delayed send due at or before `nowMs`, in due order (then send
 * order), each as an external event and its own macrostep. Fired sends leave
 * `snapshot.delayed`. Self-sent events that enable nothing are dropped silently.
 *
 * @example
 * ```ts
 * // snapshot.delayed: [{ sendId: 'timeout', dueAtMs: 1000, ... }]
 * advanceTime(Agent, snapshot, 1000).snapshot.delayed; // []
 * ```
 */
export function advanceTime<TContext, TEventType extends string, TStateId extends string>(
  def: MachineDefinition<TContext, TEventType, TStateId>,
  snapshot: MachineSnapshot<TContext, TStateId>,
  nowMs: number,
  options: Pick<TransitionOptions, 'slices'> = {},
): TransitionResult<TContext, TStateId> {
  const it = restore(def as MachineDefinition<unknown, string, string>, snapshot, nowMs, options.slices);
  const wasRunning = it.running;
  let enabled = false;
  for (let due = it.delayed[0]; due !== undefined && due.dueAtMs <= nowMs && it.running; due = it.delayed[0]) {
    it.delayed = it.delayed.slice(1);
    const queued = { event: due.event, kind: 'external', sendId: due.sendId, ...(due.sendIdGenerated === true ? { sendIdGenerated: true } : {}) } as const;
    enabled = macrostep(it, queued) || enabled;
    drainExternalQueue(it);
  }
  finish(it, wasRunning);
  return result(it, def.name, enabled, snapshot);
}
