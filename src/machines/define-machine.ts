import type { MachineAction } from './actions.js';
import { buildStateTree, ROOT_ID } from './build-state-tree.js';
import { InvalidMachineError } from './errors.js';
import type { MachineConfig } from './machine-config.js';
import type { MachineDefinition } from './machine-definition.js';
import type { MachineTypes } from './machine-types.js';
import { MACHINE_LAYER, withLayer } from '../session/feature-layers';
import { machineLayer } from './machine-layer.js';

/**
 * Declares a statechart: atomic, compound (`initial`), parallel, final and history states;
 * transitions with event descriptors, guards, one or more targets, `internal`/`external`
 * type, targetless and eventless transitions; entry/exit and transition actions; a plain
 * data context. Semantics are those of W3C SCXML (Appendix D); see {@link transition}.
 *
 * @remarks State ids are the keys of `states` and must be unique in the whole machine;
 * transition targets, `initial`, history defaults, `matches` and `send` are type-checked
 * against the ids and the event names declared in `on` (`'x.*'` accepts `x.<anything>`,
 * `'*'` accepts any name). Returns an inert, frozen definition; nothing runs until
 * {@link initialTransition} or {@link createMachineActor}. Document order is the order of
 * the `states` keys; a state's transitions are in `on` key order, then `always`, then
 * `transitions`.
 *
 * With `events: [creators]`, a guard under an `on` key named after a creator sees that event
 * typed (`event.payload` from the creator's schema); for `assign` typed without type
 * arguments as well, declare context and events first with {@link setupMachine}.
 * Guards and actions also see `slices`, a read-only view of the session's slices.
 * @param name - Machine name; snapshots carry it and are only accepted by a definition of that name.
 * @param config - The state tree and options (`context`, `invalidTransitions`: `'throw'` (default) | `'ignore'` | `'report'`).
 * @throws {@link InvalidMachineError} on duplicate ids, unknown targets, children of atomic
 * states, `initial` on a parallel state, a history state outside a compound or parallel state.
 * @example
 * ```ts
 * const Light = defineMachine('light', {
 *   context: { cycles: 0 },
 *   initial: 'green',
 *   states: {
 *     green: { on: { 'timer/elapsed': 'yellow' } },
 *     yellow: { on: { 'timer/elapsed': { target: 'red', actions: assign(({ context }) => ({ cycles: context.cycles + 1 })) } } },
 *     red: { on: { 'timer/elapsed': 'green', 'power/lost': 'off' } },
 *     off: { type: 'final' },
 *   },
 * });
 * initialTransition(Light).snapshot.configuration; // ['green']
 * ```
 */
export function defineMachine<
  const TStates extends MachineTypes.StatesInput,
  TContext = undefined,
  const TEvents extends MachineTypes.Creators = [],
  const TTransitionEvent extends string = never,
>(
  name: string,
  config: MachineTypes.MachineInput<TContext, TStates, TEvents, TTransitionEvent>,
): MachineDefinition<
  TContext,
  MachineTypes.EventsOf<TStates> | MachineTypes.TypesOf<TEvents> | MachineTypes.TransitionEventsOf<TTransitionEvent>,
  MachineTypes.StateIdsOf<TStates>
> {
  const cfg = config as unknown as MachineConfig<unknown, string>;
  if (typeof name !== 'string' || name.length === 0) throw new InvalidMachineError(String(name), 'the machine needs a non-empty name.');
  const { root, states } = buildStateTree(name, cfg);
  const initial = cfg.context;
  const initialContext =
    typeof initial === 'function' ? (initial as () => TContext) : () => (initial === undefined ? undefined : structuredClone(initial)) as TContext;
  const startActions = (cfg.startActions === undefined ? [] : Array.isArray(cfg.startActions) ? cfg.startActions : [cfg.startActions]) as MachineAction<unknown>[];
  const events = (cfg.events ?? []).map((creator, i) => {
    const type = (creator as { type?: unknown } | null)?.type;
    if (typeof type !== 'string' || type.length === 0) throw new InvalidMachineError(name, `events[${i}] is not an event creator: pass creators made by defineEvent, e.g. events: [StepAdded].`);
    return type;
  });
  // The definition carries installMachine/sessionMachine: `session.install(def)` reaches them
  // through it, so the core session imports no statechart code.
  return Object.freeze(
    withLayer(
      {
        name,
        root,
        states,
        stateIds: [...states.keys()].filter((id) => id !== ROOT_ID) as MachineTypes.StateIdsOf<TStates>[],
        invalidTransitions: cfg.invalidTransitions ?? 'throw',
        maxMicrosteps: cfg.maxMicrosteps ?? 10_000,
        initialContext,
        startActions,
        events: Object.freeze([...new Set(events)]),
      },
      MACHINE_LAYER,
      machineLayer,
    ),
  );
}
