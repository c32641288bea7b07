import type { ActionArgs } from './actions.js';
import type { MachineEffect, MachineEvent, QueuedEvent } from './machine-event.js';
import type { DelayedSend } from './machine-snapshot.js';
import type { MachineSlices } from './machine-slices.js';
import type { StateNode, TransitionNode } from './state-node.js';

/** One `<log>` line recorded during a transition. */
export interface MachineLog {
  readonly label: string | undefined;
  readonly value: unknown;
}

/** Tree facts the algorithm needs from a definition. */
export interface MachineTree {
  readonly name: string;
  readonly root: StateNode;
  readonly states: ReadonlyMap<string, StateNode>;
  readonly maxMicrosteps: number;
}

/** The synthetic event seen by actions run while the machine starts. */
export const INIT_EVENT: QueuedEvent = { event: { type: 'rxslice.machine.init' }, kind: 'platform' };

/**
 * Mutable working state of one `transition()` call (internal). Built from a snapshot,
 * turned back into one at the end; nothing outside the call ever sees it.
 */
export interface InterpreterState {
  readonly tree: MachineTree;
  readonly configuration: Set<StateNode>;
  readonly historyValue: Map<string, readonly StateNode[]>;
  context: unknown;
  readonly internalQueue: QueuedEvent[];
  readonly externalQueue: QueuedEvent[];
  delayed: DelayedSend[];
  sendSeq: number;
  running: boolean;
  output: unknown;
  readonly now: number;
  currentEvent: QueuedEvent;
  microsteps: number;
  readonly effects: MachineEffect[];
  readonly logs: MachineLog[];
  readonly errors: unknown[];
  readonly raised: MachineEvent[];
  readonly sent: DelayedSend[];
  readonly cancelled: string[];
  /** What guards and actions see as `slices`. */
  readonly slices: MachineSlices;
  /** True while the external event's transitions are selected: refusing guards are recorded in `refusals`. */
  recordRefusals?: boolean;
  /** The guards that refused (or threw) while `recordRefusals` was on, in evaluation order; allocated on the first. */
  refusals?: GuardRefusalRecord[] | undefined;
  /**
   * True once a state was entered or exited (the configuration may differ from the restored
   * one; when false it is the restored one, so its snapshot arrays can be shared as they are).
   */
  configurationTouched?: boolean;
  /** True once history was recorded (when false, the restored history is unchanged). */
  historyTouched?: boolean;
  /** The `inState` of {@link actionArgs}, made once per interpreter state (it reads the live configuration). */
  inState?: ((id: string) => boolean) | undefined;
}

/** A transition whose guard refused or threw during selection (internal; becomes a `ConsideredTransition`). */
export interface GuardRefusalRecord {
  readonly transition: TransitionNode;
  readonly verdict: 'refused' | 'threw';
  readonly reason: string | undefined;
}

/** The arguments guards and actions see right now. */
export function actionArgs(it: InterpreterState): ActionArgs<unknown> {
  const current = it.currentEvent;
  return {
    context: it.context,
    event: current.event,
    eventKind: current.kind,
    sendId: current.sendId,
    sendIdGenerated: current.sendIdGenerated === true,
    inState: (it.inState ??= inStateOf(it)),
    slices: it.slices,
  };
}

/** SCXML's `In()` over the live configuration of `it` (so one function serves the whole step). */
function inStateOf(it: InterpreterState): (id: string) => boolean {
  const configuration = it.configuration;
  const states = it.tree.states;
  return (id: string) => {
    const s = states.get(id);
    return s !== undefined && configuration.has(s);
  };
}
