import type { ActionArgs, MachineAction } from './actions.js';
import type { InvalidTransitionPolicy } from './machine-config.js';

/**
 * Type-level helpers of {@link defineMachine}: infer state ids and event names from a
 * config written as a literal, and check targets against the ids.
 */
export declare namespace MachineTypes {
  type Targets<TId extends string> = TId | readonly TId[];
  type ActionsOf<TContext> = MachineAction<TContext> | readonly MachineAction<TContext>[];

  interface TransitionInput<TContext, TId extends string> {
    readonly target?: Targets<TId>;
    readonly guard?: (args: ActionArgs<TContext>) => boolean;
    readonly guardLabel?: string;
    readonly actions?: ActionsOf<TContext>;
    readonly type?: 'internal' | 'external';
  }
  type TransitionSpecInput<TContext, TId extends string> = Targets<TId> | TransitionInput<TContext, TId>;

  /** The loose shape state configs must have before checking. */
  interface StatesInput {
    readonly [id: string]: StateInputLoose;
  }
  interface StateInputLoose {
    readonly type?: 'atomic' | 'compound' | 'parallel' | 'final' | 'history';
    readonly states?: StatesInput;
    readonly on?: { readonly [descriptor: string]: unknown };
    readonly transitions?: readonly unknown[];
    readonly [key: string]: unknown;
  }

  /** One state, checked against the machine's ids and context. */
  interface StateInput<TContext, TId extends string, TChildren> {
    readonly type?: 'atomic' | 'compound' | 'parallel' | 'final' | 'history';
    readonly description?: string;
    readonly initial?: Targets<TId> | { readonly target: Targets<TId>; readonly actions?: ActionsOf<TContext> };
    readonly states?: CheckedStates<TContext, TId, TChildren>;
    readonly on?: { readonly [descriptor: string]: TransitionSpecInput<TContext, TId> | readonly TransitionSpecInput<TContext, TId>[] };
    readonly always?: TransitionSpecInput<TContext, TId> | readonly TransitionSpecInput<TContext, TId>[];
    readonly transitions?: readonly (TransitionInput<TContext, TId> & { readonly event?: string })[];
    readonly entry?: ActionsOf<TContext>;
    readonly exit?: ActionsOf<TContext>;
    readonly history?: 'shallow' | 'deep';
    readonly target?: Targets<TId>;
    readonly defaultActions?: ActionsOf<TContext>;
    readonly output?: (args: ActionArgs<TContext>) => unknown;
  }

  type ChildrenOf<T> = T extends { readonly states: infer S } ? S : unknown;

  /** The states record with every target narrowed to the machine's ids. */
  type CheckedStates<TContext, TId extends string, TStates> = {
    readonly [K in keyof TStates]: StateInput<TContext, TId, ChildrenOf<TStates[K]>>;
  };

  /** Every state id declared anywhere in the tree. */
  type StateIdsOf<TStates> = TStates extends StatesInput
    ? { [K in keyof TStates & string]: K | StateIdsOf<ChildrenOf<TStates[K]>> }[keyof TStates & string]
    : never;

  type DescriptorEvent<D extends string> = D extends '*'
    ? string
    : D extends `${infer P}.*`
      ? `${P}.${string}`
      : D extends `${infer A} ${infer B}`
        ? DescriptorEvent<A> | DescriptorEvent<B>
        : D;
  type ListEvents<T> = T extends readonly { readonly event?: infer E }[] ? (E extends string ? DescriptorEvent<E> : never) : never;

  /** Event names accepted by the machine: the `on` keys and `transitions` events of every state. */
  type EventsOf<TStates> = TStates extends StatesInput
    ? {
        [K in keyof TStates & string]:
          | (TStates[K] extends { readonly on: infer O } ? DescriptorEvent<keyof O & string> : never)
          | (TStates[K] extends { readonly transitions: infer L } ? ListEvents<L> : never)
          | EventsOf<ChildrenOf<TStates[K]>>;
      }[keyof TStates & string]
    : never;

  /** The config argument of {@link defineMachine}. */
  interface MachineInput<TContext, TStates> {
    readonly context?: TContext | (() => TContext);
    readonly initial?: NoInfer<Targets<StateIdsOf<TStates>>> | { readonly target: NoInfer<Targets<StateIdsOf<TStates>>>; readonly actions?: ActionsOf<NoInfer<TContext>> };
    readonly states: TStates & CheckedStates<NoInfer<TContext>, NoInfer<StateIdsOf<TStates>>, TStates>;
    readonly invalidTransitions?: InvalidTransitionPolicy;
    readonly maxMicrosteps?: number;
    readonly startActions?: ActionsOf<NoInfer<TContext>>;
  }
}
