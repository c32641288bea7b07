import { InvalidMachineError } from './errors.js';
import { INIT_EVENT, type InterpreterState } from './interpreter-state.js';
import type { MachineDefinition } from './machine-definition.js';
import type { MachineSnapshot } from './machine-snapshot.js';
import { NO_SLICES, type MachineSlices } from './machine-slices.js';
import { byDocumentOrder, isAtomic, type StateNode } from './state-node.js';
import { quote } from '../internal/quote';

/** A fresh interpreter state (internal). */
export function fresh(def: MachineDefinition<unknown, string, string>, nowMs: number, slices: MachineSlices = NO_SLICES, active?: readonly StateNode[]): InterpreterState {
  return {
    tree: def,
    configuration: new Set(active),
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
    recordRefusals: false,
    refusals: undefined,
    configurationTouched: false,
    historyTouched: false,
    inState: undefined,
  };
}

/**
 * A configuration this module checked or made: its states (in the order of its ids) and their
 * {@link configurationKey}. Kept per frozen `configuration` array (a frozen array never changes),
 * so a snapshot restored again (an installed machine restores its snapshot on every event it
 * decides) is not looked up and checked state by state again.
 */
interface KnownConfiguration {
  readonly def: object;
  readonly nodes: readonly StateNode[];
  readonly key: number | string;
  /** Set when this module made the array: the pair it belongs to. */
  readonly arrays?: ConfigurationArrays;
}
const knownConfigurations = new WeakMap<readonly string[], KnownConfiguration>();

/** A configuration's snapshot arrays (frozen), shared by every snapshot with the same active states. */
interface ConfigurationArrays {
  readonly configuration: readonly string[];
  readonly basicConfiguration: readonly string[];
}
/** Per definition: the arrays of each configuration met so far, by {@link configurationKey}. */
const configurationsByDef = new WeakMap<object, Map<number | string, ConfigurationArrays>>();
/** How many configurations a definition keeps arrays for (a machine with more makes new arrays for the rest). */
const CONFIGURATIONS_KEPT = 256;

/**
 * A key for a set of states of one definition, from their document-order positions (unique per
 * state; ids may hold any character): a bit set in an integer while every position is below 31,
 * else the sorted positions written out.
 */
function configurationKey(states: Iterable<StateNode>): number | string {
  let bits = 0;
  for (const s of states) {
    if (s.order >= 31) return [...states].map((x) => x.order).sort((a, b) => a - b).join(',');
    bits |= 1 << s.order;
  }
  return bits;
}

/**
 * True when the active states are exactly `previous.configuration`, which is in document order,
 * and `previous.basicConfiguration` is its atomic states: what {@link snapshotConfiguration}
 * would build (for a snapshot whose arrays this module did not make).
 */
function sameConfiguration(it: InterpreterState, previous: MachineSnapshot): boolean {
  const ids = previous.configuration;
  const basic = previous.basicConfiguration;
  if (it.configuration.size !== ids.length) return false;
  let order = -1;
  let b = 0;
  for (const id of ids) {
    const s = it.tree.states.get(id);
    if (s === undefined || !it.configuration.has(s) || s.order <= order) return false;
    order = s.order;
    if (isAtomic(s) && basic[b++] !== id) return false;
  }
  return b === basic.length;
}

/**
 * @internal The `configuration` and `basicConfiguration` of the snapshot of `it`: those of
 * `previous` (the snapshot `it` was restored from) when the active states are still its own, else
 * frozen arrays made once per configuration of the definition and shared (a machine moving
 * between a few phases makes no new arrays), which a later {@link restore} recognises without
 * checking their ids.
 */
export function snapshotConfiguration(it: InterpreterState, previous: MachineSnapshot | undefined): ConfigurationArrays {
  const def = it.tree;
  let key: number | string | undefined;
  if (previous !== undefined) {
    const before = knownConfigurations.get(previous.configuration);
    if (before !== undefined && before.def === def && before.arrays !== undefined && before.arrays.basicConfiguration === previous.basicConfiguration) {
      // A pair this module made: untouched, or back to the same states, it is still the configuration.
      if (it.configurationTouched !== true) return previous;
      key = configurationKey(it.configuration);
      if (key === before.key) return previous;
    } else if (sameConfiguration(it, previous)) {
      return previous;
    }
  }
  key ??= configurationKey(it.configuration);
  let byKey = configurationsByDef.get(def);
  const known = byKey?.get(key);
  if (known !== undefined) return known;
  const active = [...it.configuration].sort(byDocumentOrder);
  const ids = new Array<string>(active.length);
  const basic: string[] = [];
  for (let i = 0; i < active.length; i++) {
    const s = active[i] as StateNode;
    ids[i] = s.id;
    if (isAtomic(s)) basic.push(s.id);
  }
  const arrays: ConfigurationArrays = { configuration: Object.freeze(ids), basicConfiguration: Object.freeze(basic) };
  knownConfigurations.set(arrays.configuration, { def, nodes: active, key, arrays });
  if (byKey === undefined) configurationsByDef.set(def, (byKey = new Map()));
  if (byKey.size < CONFIGURATIONS_KEPT) byKey.set(key, arrays);
  return arrays;
}

/** The state `id` of `def` that a snapshot may name. @throws {@link InvalidMachineError} for any other id. */
function stateOf(def: MachineDefinition<unknown, string, string>, id: string): StateNode {
  const s = def.states.get(id);
  if (s === undefined || s.kind === 'root' || s.kind === 'history') throw new InvalidMachineError(def.name, `the snapshot names unknown state ${quote(id)}. Was it taken from another version of the machine?`);
  return s;
}

/** Rebuilds the interpreter state from a snapshot, checking it fits the definition (internal). */
export function restore(
  def: MachineDefinition<unknown, string, string>,
  snapshot: MachineSnapshot<unknown, string>,
  nowMs: number,
  slices: MachineSlices = NO_SLICES,
): InterpreterState {
  if (snapshot.machine !== def.name) throw new InvalidMachineError(def.name, `the snapshot belongs to machine ${quote(snapshot.machine)}.`);
  const node = (id: string): StateNode => stateOf(def, id);
  const ids = snapshot.configuration;
  const known = knownConfigurations.get(ids);
  const it = fresh(def, nowMs, slices, known !== undefined && known.def === def ? known.nodes : undefined);
  if (it.configuration.size === 0 && ids.length > 0) {
    for (const id of ids) it.configuration.add(node(id));
    // A frozen array never changes: the next restore of it skips the checks.
    if (Object.isFrozen(ids)) knownConfigurations.set(ids, { def, nodes: [...it.configuration], key: configurationKey(it.configuration) });
  }
  const history = snapshot.historyValue;
  for (const h in history) {
    if (!Object.hasOwn(history, h)) continue;
    if (def.states.get(h)?.kind !== 'history') throw new InvalidMachineError(def.name, `the snapshot records history for ${quote(h)}, which is not a history state.`);
    it.historyValue.set(h, (history[h] as readonly string[]).map(node));
  }
  it.context = snapshot.context;
  it.delayed = [...snapshot.delayed];
  it.sendSeq = snapshot.sendSeq;
  it.running = !snapshot.done;
  it.output = snapshot.output;
  return it;
}

