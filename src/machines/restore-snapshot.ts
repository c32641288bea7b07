import { InvalidMachineError } from './errors.js';
import { INIT_EVENT, type InterpreterState } from './interpreter-state.js';
import type { MachineDefinition } from './machine-definition.js';
import type { MachineSnapshot } from './machine-snapshot.js';
import { NO_SLICES, type MachineSlices } from './machine-slices.js';
import type { StateNode } from './state-node.js';

/** A fresh interpreter state (internal). */
export function fresh(def: MachineDefinition<unknown, string, string>, nowMs: number, slices: MachineSlices = NO_SLICES): InterpreterState {
  return {
    tree: def,
    configuration: new Set(),
    historyValue: new Map(),
    context: undefined,
    internalQueue: [],
    externalQueue: [],
    delayed: [],
    sendSeq: 0,
    running: true,
    output: undefined,
    now: nowMs,
    currentEvent: INIT_EVENT,
    microsteps: 0,
    effects: [],
    logs: [],
    errors: [],
    raised: [],
    sent: [],
    cancelled: [],
    slices,
  };
}

/** Rebuilds the interpreter state from a snapshot, checking it fits the definition (internal). */
export function restore(
  def: MachineDefinition<unknown, string, string>,
  snapshot: MachineSnapshot<unknown, string>,
  nowMs: number,
  slices: MachineSlices = NO_SLICES,
): InterpreterState {
  if (snapshot.machine !== def.name) throw new InvalidMachineError(def.name, `the snapshot belongs to machine "${snapshot.machine}".`);
  const node = (id: string): StateNode => {
    const s = def.states.get(id);
    if (s === undefined || s.kind === 'root' || s.kind === 'history') throw new InvalidMachineError(def.name, `the snapshot names unknown state "${id}". Was it taken from another version of the machine?`);
    return s;
  };
  const it = fresh(def, nowMs, slices);
  for (const id of snapshot.configuration) it.configuration.add(node(id));
  for (const [h, ids] of Object.entries(snapshot.historyValue)) {
    if (def.states.get(h)?.kind !== 'history') throw new InvalidMachineError(def.name, `the snapshot records history for "${h}", which is not a history state.`);
    it.historyValue.set(h, ids.map(node));
  }
  it.context = snapshot.context;
  it.delayed = [...snapshot.delayed];
  it.sendSeq = snapshot.sendSeq;
  it.running = !snapshot.done;
  it.output = snapshot.output;
  return it;
}

