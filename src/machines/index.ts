export { assign, block, cancel, effect, log, raise, refuse, send } from './actions.js';
export type {
  ActionArgs,
  AssignAction,
  BlockAction,
  CancelAction,
  DynamicAction,
  EffectAction,
  Guard,
  GuardRefusal,
  GuardResult,
  EffectPayloadArgs,
  LogAction,
  MachineAction,
  RaiseAction,
  SendAction,
  SendOptions,
  EffectPayload,
  ValueOrFn,
} from './actions.js';
export { availableTransitions, canTransition } from './available-transitions.js';
export type { AvailableTransition, AvailableTransitionsOptions, BlockedTransition, EnabledTransition, IntrospectionOptions } from './available-transitions.js';
export { explainTransition } from './explain-transition.js';
export type { ExplainOptions } from './explain-transition.js';
export type { ConsideredTransition, TransitionDecision, TransitionVerdict } from './transition-decision.js';
export { defineMachine } from './define-machine.js';
export { setupMachine } from './setup-machine.js';
export type { MachineSetup, MachineSetupInput } from './setup-machine.js';
export { MachineSlicesUnavailableError } from './machine-slices.js';
export type { MachineSlices } from './machine-slices.js';
export {
  InvalidExpressionError,
  InvalidMachineActionError,
  InvalidMachineError,
  InvalidTransitionError,
  MachineNotRunningError,
  ScxmlInvalidError,
  ScxmlUnsupportedError,
} from './errors.js';
export type { ScxmlLocation } from './errors.js';
export { eventMatches } from './event-descriptor.js';
export type { MachineLog } from './interpreter-state.js';
export { createMachineActor } from './machine-actor.js';
export type { MachineActor, MachineActorOptions } from './machine-actor.js';
export type {
  Actions,
  InitialSpec,
  InvalidTransitionPolicy,
  MachineConfig,
  MachineTransitionConfig,
  StateConfig,
  Targets,
  TransitionConfig,
  TransitionSpec,
} from './machine-config.js';
export type { ContextOf, EventTypeOf, MachineDefinition, StateIdOf } from './machine-definition.js';
export type { MachineEffect, MachineEvent, MachineEventKind } from './machine-event.js';
export type { DelayedSend, MachineSnapshot } from './machine-snapshot.js';
export type { MachineTypes } from './machine-types.js';
export { matches } from './matches.js';
export type { StateNode, StateNodeKind, TransitionNode } from './state-node.js';
export { advanceTime, initialTransition, transition } from './transition.js';
export type { TransitionOptions, TransitionResult } from './transition.js';
export { targetlessTransitions, toMermaid } from './to-mermaid.js';
export type { TargetlessTransition, ToMermaidOptions } from './to-mermaid.js';
export { installMachine, sessionMachine, MachineTimerFired } from './session-machine.js';
export type { SessionMachine } from './session-machine.js';
export { MachineNotInstalledError } from './errors.js';
