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
}

/** A transition whose guard refused or threw during selection (internal; becomes a `ConsideredTransition`). */
export interface GuardRefusalRecord {
  readonly transition: TransitionNode;
  readonly verdict: 'refused' | 'threw';
  readonly reason: string | undefined;
}

/** The arguments guards and actions see right now. */
export function actionArgs(it: InterpreterState): ActionArgs<unknown> {
  const configuration = it.configuration;
  const states = it.tree.states;
  return {
    context: it.context,
    event: it.currentEvent.event,
    eventKind: it.currentEvent.kind,
    sendId: it.currentEvent.sendId,
    sendIdGenerated: it.currentEvent.sendIdGenerated === true,
    inState: (id: string) => {
      const s = states.get(id);
      return s !== undefined && configuration.has(s);
    },
    slices: it.slices,
  };
}
