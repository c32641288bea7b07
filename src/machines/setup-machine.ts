import { defineMachine } from './define-machine.js';
import type { MachineDefinition } from './machine-definition.js';
import type { MachineTypes } from './machine-types.js';

/** What {@link setupMachine} takes: the machine's context and the event creators it handles. */
export interface MachineSetupInput<TContext, TEvents extends MachineTypes.Creators> {
  /** Initial context (plain JSON data) or a factory for it; its type is the machine's context type. */
  readonly context?: TContext | (() => TContext);
  /** The creators (from `defineEvent`) of the events the machine handles; `on` keys named after their types get typed events. */
  readonly events?: TEvents;
}

/** The typed builder {@link setupMachine} returns. */
export interface MachineSetup<TContext, TEvents extends MachineTypes.Creators> {
  /** The `context` given to {@link setupMachine} (a value or a factory), `undefined` when none was. */
  readonly context: TContext | (() => TContext) | undefined;
  /** The event creators given to {@link setupMachine} (empty when none were). */
  readonly events: TEvents;
  /**
   * {@link defineMachine} with this setup's context and events: every guard and action sees
   * `context` as `TContext` and, under an `on` key named after a declared creator, `event` as
   * that creator's event (payload from its schema). `assign` needs no type arguments.
   * @throws {@link InvalidMachineError} as {@link defineMachine} does.
   */
  defineMachine<const TStates extends MachineTypes.StatesInput, const TTransitionEvent extends string = never>(
    name: string,
    config: MachineTypes.SetupMachineInput<TContext, TStates, TEvents, TTransitionEvent>,
  ): MachineDefinition<
    TContext,
    MachineTypes.EventsOf<TStates> | MachineTypes.TypesOf<TEvents> | MachineTypes.TransitionEventsOf<TTransitionEvent>,
    MachineTypes.StateIdsOf<TStates>
  >;
}

/**
 * Fixes a machine's context type and events first, so that everything written inside
 * `.defineMachine(name, config)` is typed from them without type arguments: guards and
 * `assign` see `context`, the payload of the `on` key's event and the session's `slices`.
 * The same two-step shape as XState 5's `setup({ types }).createMachine(config)`: in one call,
 * TypeScript cannot infer the context from the config and type the `assign(...)` calls inside
 * that same config.
 *
 * @remarks Inert, like `defineMachine`: nothing runs until the definition is started or
 * installed. Declared events are also *named* events of the machine (see
 * `MachineDefinition.events`): in a session, one that enables no transition follows
 * `invalidTransitions`, even in a state that has no transition for it.
 * @param setup - `context`: the initial context (or a factory); `events`: event creators.
 * @example
 * ```ts
 * const StepAdded = defineEvent('plan/stepAdded', z.object({ id: z.string() }));
 * const Counter = setupMachine({ context: { added: 0 }, events: [StepAdded] }).defineMachine('counter', {
 *   states: {
 *     open: {
 *       on: {
 *         'plan/stepAdded': {
 *           guard: ({ event }) => event.payload.id.length > 0, // event: Event<'plan/stepAdded', { id: string }>
 *           actions: assign(({ context }) => ({ added: context.added + 1 })), // context: { added: number }
 *         },
 *       },
 *     },
 *   },
 * });
 * ```
 */
export function setupMachine<TContext = undefined, const TEvents extends MachineTypes.Creators = []>(
  setup: MachineSetupInput<TContext, TEvents>,
): MachineSetup<TContext, TEvents> {
  const events = (setup.events ?? []) as TEvents;
  return Object.freeze({
    context: setup.context,
    events,
    defineMachine: (name: string, config: object) =>
      defineMachine(name, { ...config, ...(setup.context === undefined ? {} : { context: setup.context }), events } as never),
  }) as unknown as MachineSetup<TContext, TEvents>;
}
