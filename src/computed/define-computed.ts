import type { Session } from '../session/create-session';
import { ATTACH, NOT_A_SLICE } from '../session/internals';
import { computed, type ComputedHandle } from './computed';
import { checkComputedDeclaration } from './computed-declaration';
import { ComputedReadOnlyError } from './computed-errors';
import type { SliceDef } from '../slices/reducer';

/** What a computed slice may derive from: slices and other computed slices. */
export type ComputedSource = SliceDef<string, any> | ComputedDef<string, any>;

/** The value a source contributes to `project`: a slice's items, or a computed slice's value. */
export type SourceValue<TSource> =
  TSource extends ComputedDef<string, infer TValue>
    ? TValue
    : TSource extends SliceDef<string, infer TItem>
      ? readonly TItem[]
      : never;

/** The arguments of `project`, one per source, in order. */
export type SourceValues<TSources extends readonly ComputedSource[]> = { -readonly [K in keyof TSources]: SourceValue<TSources[K]> };

/** Options of {@link defineComputed}. */
export interface ComputedOptions<TValue> {
  /**
   * When a recomputed value counts as unchanged: then the previous value (the same reference)
   * is kept, nothing is emitted and dependents are not recomputed. Default `Object.is`
   * (reference equality): return the same object from `project` to mean "unchanged".
   */
  readonly equals?: (previous: TValue, next: TValue) => boolean;
}

/** A computed slice declaration made by {@link defineComputed} (inert, reusable across sessions). */
export interface ComputedDef<TName extends string = string, TValue = unknown> {
  readonly kind: 'computed';
  readonly name: TName;
  readonly sources: readonly ComputedSource[];
  readonly project: (...values: any[]) => TValue;
  readonly equals: (previous: TValue, next: TValue) => boolean;
  /** Phantom field carrying the value type: `typeof Progress.Value`. Always `undefined` at run time. */
  readonly Value: TValue;
  /** @internal Opens the computed slice in a session: `session.computed(def)`. */
  readonly [ATTACH]: (session: Session) => ComputedHandle<TValue>;
}

/** The value type of a computed slice definition: `InferComputed<typeof Progress>`. */
export type InferComputed<TDef> = TDef extends ComputedDef<string, infer TValue> ? TValue : never;

/**
 * Declares a computed slice: a read-only value derived from slices and other computed
 * slices by a pure `project` function. The declaration is inert; read it in a session with
 * `computed(session, def)` (or `session.computed(def)`).
 *
 * @remarks In a session a computed slice is lazy (`project` runs first when it is read or
 * subscribed), memoized on its sources' versions (reading twice with no source change calls
 * `project` once) and glitch-free: after one committed event or one `session.batch`, it is
 * recomputed at most once, after all its sources, and emits at most once (never when the new
 * value `equals` the previous one, `Object.is` by default).
 * @param name - Used in errors and devtools.
 * @param sources - Slices (their items are passed as `readonly T[]`) or computed slices (their value).
 * @param project - Pure function of the sources' values, in order. Must not dispatch or throw;
 * a throw is reported on `session.errors$` as a {@link ComputedError} and the previous value is kept.
 * @throws {@link InvalidComputedError} when the name is empty or a source is
 * neither a slice nor a computed slice.
 * @example
 * ```ts
 * const Done = defineComputed('done', [Steps], (steps) => steps.filter((s) => s.done).length);
 * const Progress = defineComputed('progress', [Steps, Done], (steps, done) => (steps.length ? done / steps.length : 0));
 * computed(session, Progress).value$.subscribe(console.log); // Logs: 0, then once per event that changes it
 * ```
 */
export function defineComputed<const TName extends string, const TSources extends readonly ComputedSource[], TValue>(
  name: TName,
  sources: TSources,
  project: (...values: SourceValues<TSources>) => TValue,
  options: ComputedOptions<TValue> = {},
): ComputedDef<TName, TValue> {
  checkComputedDeclaration(name, sources);
  const def: ComputedDef<TName, TValue> = Object.freeze({
    kind: 'computed',
    name,
    sources: Object.freeze([...sources]),
    project: project as (...values: any[]) => TValue,
    equals: options.equals ?? Object.is,
    Value: undefined as TValue,
    [NOT_A_SLICE]: (operation: string) => new ComputedReadOnlyError(name, operation),
    [ATTACH]: (session: Session) => computed(session, def),
  });
  return def;
}
