import type { Effect } from './define-effect';
import { InvalidEffectDefinitionError } from './errors';

/** A step of {@link sequence}: an effect, or a function of the previous step's result that returns one. */
export type SequenceStep = Effect | ((previous: unknown) => Effect);

/** Runs its effects side by side; result: their results in order. */
export type AllEffect = Effect<'rxslice.effect.all', { readonly effects: readonly Effect[] }>;
/** Runs its effects side by side; the first to settle wins and the others are cancelled. */
export type RaceEffect = Effect<'rxslice.effect.race', { readonly effects: readonly Effect[] }>;
/** Runs its steps one after another, each step receiving the previous result. */
export type SequenceEffect = Effect<'rxslice.effect.sequence', { readonly steps: readonly SequenceStep[] }>;
/** An effect made of other effects. */
export type CompositeEffect = AllEffect | RaceEffect | SequenceEffect;

/**
 * Composes effects to run side by side; the composite succeeds with the array of their results
 * (in the given order) when all succeeded, and fails as soon as one fails (the others are cancelled).
 *
 * @remarks Like every composite, a plain value that a reducer returns with `withEffects`. The
 * children run with their own retry, timeout, compensation and lifecycle events, but not under
 * their type's concurrency mode (that applies to effects a reducer requests directly). An empty
 * `all([])` succeeds at once with `[]`. Uses RxJS `forkJoin`.
 * @example
 * ```ts
 * on(OrderPlaced, (_v, e) => withEffects(append(e.payload), [all([Charge(e.payload), Reserve(e.payload)])]));
 * ```
 */
export function all(effects: readonly Effect[]): AllEffect {
  return { type: 'rxslice.effect.all', payload: { effects: [...effects] } };
}

/**
 * Composes effects to run side by side; the first to settle (succeed, or fail after its last
 * attempt) decides the composite's outcome and the others are unsubscribed (their signals aborted,
 * `rxslice.effect.cancelled` dispatched). Uses RxJS `race`.
 *
 * @throws {@link InvalidEffectDefinitionError} for an empty list (a race needs a runner).
 * @example
 * ```ts
 * withEffects(none(), [race([FetchFromCache({ id }), FetchFromApi({ id })])]);
 * ```
 */
export function race(effects: readonly Effect[]): RaceEffect {
  if (effects.length === 0) throw new InvalidEffectDefinitionError('rxslice.effect.race', 'race([]) needs at least one effect');
  return { type: 'rxslice.effect.race', payload: { effects: [...effects] } };
}

/**
 * Composes steps to run one after another; a function step receives the previous step's result
 * (`undefined` for the first) and returns the effect to run. The composite succeeds with the last
 * result and fails at the first failing step (later steps do not run). Uses RxJS `concatMap`.
 *
 * @remarks **Compensation, as in a saga**: when a step fails, its own `compensate` event is
 * dispatched (after its last attempt, as for any effect), then each leaf effect that already
 * succeeded in this sequence (children of nested composites included) has its `compensate`
 * event dispatched, in reverse order of success, with the failing step's error as `error`, each
 * followed by `rxslice.effect.compensated`. Effects without `compensate` are skipped. For steps
 * that must survive a crash, use a saga (`defineSaga`).
 * Function steps make the composite hold code, so it is no longer serializable; keep
 * them pure (they run when the previous step succeeded).
 * @example
 * ```ts
 * sequence([FetchUser({ id }), (user) => SendWelcome({ to: (user as User).email })]);
 * ```
 */
export function sequence(steps: readonly SequenceStep[]): SequenceEffect {
  return { type: 'rxslice.effect.sequence', payload: { steps: [...steps] } };
}

/**
 * True for effects made by {@link all}, {@link race} or {@link sequence} (type guard).
 * @example
 * ```ts
 * isCompositeEffect(race([Fetch({ url: a }), Fetch({ url: b })])); // true
 * isCompositeEffect(Fetch({ url: a }));                              // false
 * ```
 */
export function isCompositeEffect(effect: Effect): effect is CompositeEffect {
  return effect.type === 'rxslice.effect.all' || effect.type === 'rxslice.effect.race' || effect.type === 'rxslice.effect.sequence';
}
