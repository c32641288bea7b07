import { z } from 'zod';
import { defineEvent } from '../events/define-event';
import type { Event, EventCreator } from '../events/event';
import { RxSliceError } from '../internal/errors';
import { defineSlice } from '../slices/define-slice';
import type { SliceDef } from '../slices/reducer';
import { none, replace } from '../slices/slice-op';
import { quote } from '../internal/quote';

/**
 * Thrown when updates of one step conflict: two writes to a single-writer field (one without a
 * reducer), or two `overwrite`s of one field, in the same `updateMany` (LangGraph's
 * `INVALID_CONCURRENT_GRAPH_UPDATE`); or an update names a field the state does not have.
 * Nothing changes.
 */
export class InvalidUpdateError extends RxSliceError {
  override readonly name = 'InvalidUpdateError';
  constructor(
    readonly state: string,
    readonly field: string,
    reason: string,
  ) {
    super('INVALID_UPDATE', `State ${quote(state)}, field ${quote(field)}: ${reason}`);
  }
}

/**
 * A field reducer: merges one update into the field's current value (pure; must not mutate its
 * arguments). Several updates of one step are folded through it in order.
 */
export type FieldReducer<TValue, TUpdate = TValue> = (current: TValue, update: TUpdate) => TValue;

/** A field of a {@link defineState} state. */
export interface Field<TValue, TUpdate = TValue> {
  readonly schema: z.ZodType<TValue>;
  /** Validates one update of the field (the field's schema unless `update` was given). */
  readonly updateSchema: z.ZodType<TUpdate>;
  readonly reducer: FieldReducer<TValue, TUpdate> | undefined;
  readonly default: TValue;
}

/**
 * Declares a field: its schema, its initial value and, optionally, the reducer that merges
 * updates into it. A field without a reducer has a single writer per step: its update replaces
 * the value, and two updates of it in one step are an {@link InvalidUpdateError}.
 * @param options.update - The schema of one update when the reducer takes something else than
 * the field's type (default: the field's schema).
 * @example
 * ```ts
 * field(z.array(ToolCall), { reducer: add, default: [] });
 * field(TokenMetrics, { reducer: tokenMerge, default: { totalInput: 0, totalOutput: 0 } });
 * ```
 */
export function field<TValue, TUpdate = TValue>(
  schema: z.ZodType<TValue>,
  options: { readonly default: NoInfer<TValue>; readonly reducer?: FieldReducer<NoInfer<TValue>, TUpdate>; readonly update?: z.ZodType<TUpdate> },
): Field<TValue, TUpdate> {
  return Object.freeze({
    schema,
    updateSchema: (options.update ?? schema) as unknown as z.ZodType<TUpdate>,
    reducer: options.reducer,
    default: options.default,
  });
}

/** `add`: appends the update's items (LangGraph's `operator.add` on lists). */
export const add = <T>(current: readonly T[], update: readonly T[]): T[] => [...current, ...update];

/** `dictMerge`: the update's keys replace the current ones (a shallow merge of records). */
export const dictMerge = <T>(current: Readonly<Record<string, T>>, update: Readonly<Record<string, T>>): Record<string, T> => ({ ...current, ...update });

/** `setUnion`: the current items, then the update's items not already there (compared as JSON), in order. */
export const setUnion = <T>(current: readonly T[], update: readonly T[]): T[] => {
  const seen = new Set(current.map((x) => JSON.stringify(x)));
  const out = [...current];
  for (const x of update) {
    const key = JSON.stringify(x);
    if (!seen.has(key)) {
      seen.add(key);
      out.push(x);
    }
  }
  return out;
};

const OVERWRITE = '$overwrite';

/** An update value that replaces the field, bypassing its reducer (LangGraph's `Overwrite`). */
export interface Overwrite<TValue> {
  readonly [OVERWRITE]: TValue;
}

/**
 * Marks an update value that replaces the field as it is, bypassing its reducer (at most one per
 * field and step). Plain JSON (`{ "$overwrite": value }`), so it survives storage and replay.
 * @example
 * ```ts
 * session.dispatch(Execution.update({ toolCalls: overwrite([]) })); // clears the list
 * ```
 */
export const overwrite = <TValue>(value: TValue): Overwrite<TValue> => ({ [OVERWRITE]: value });

const isOverwrite = (v: unknown): v is Overwrite<unknown> => v !== null && typeof v === 'object' && !Array.isArray(v) && Object.keys(v).length === 1 && Object.hasOwn(v, OVERWRITE);

// The fields' constraint names no update type: a contextual `Field<any, any>` would make
// TypeScript infer `any` as the update type of fields declared without a reducer.
/**
 * The fields of a state, by name: what {@link defineState} takes and what `StateDef`,
 * `StateValue` and `StateUpdate` are computed from. Each entry is a {@link Field} made by
 * {@link field} (a zod schema, a default and an optional merge reducer); only the schema and the
 * default are named here, so that each field keeps its own update type.
 */
export type StateFields = Readonly<Record<string, { readonly schema: z.ZodType<any>; readonly default: unknown }>>;

/** The value of a state: every field's value. */
export type StateValue<TFields extends StateFields> = { readonly [K in keyof TFields]: TFields[K] extends Field<infer V, any> ? V : never };

/** One partial update: some fields, each an update for its reducer or an `overwrite(value)`. */
export type StateUpdate<TFields extends StateFields> = {
  readonly [K in keyof TFields]?: TFields[K] extends Field<infer V, infer U> ? U | Overwrite<V> : never;
};

/** A state declared by {@link defineState}: a state slice holding one frozen value, and its update events. */
export interface StateDef<TName extends string, TFields extends StateFields>
  extends SliceDef<TName, StateValue<TFields>, Event<`${TName}/updated`, { readonly updates: readonly StateUpdate<TFields>[] }>> {
  readonly fields: TFields;
  /** The initial value (every field's default). */
  readonly defaults: StateValue<TFields>;
  /** The event of one step: `updates` merged field by field, in order. */
  readonly Updated: EventCreator<`${TName}/updated`, { readonly updates: readonly StateUpdate<TFields>[] }>;
  /**
   * One partial update as one step.
   * @throws {@link InvalidUpdateError} for a field the state does not have.
   */
  update(update: StateUpdate<TFields>): Event<`${TName}/updated`, { readonly updates: readonly StateUpdate<TFields>[] }>;
  /**
   * Several writers' updates as one step, merged field by field through the reducers.
   * @throws {@link InvalidUpdateError} when two updates write one single-writer field, or overwrite one field.
   */
  updateMany(updates: readonly StateUpdate<TFields>[]): Event<`${TName}/updated`, { readonly updates: readonly StateUpdate<TFields>[] }>;
  /** The value after applying `updates` (one step) to `value`: the reducer's pure function. */
  apply(value: StateValue<TFields>, updates: readonly StateUpdate<TFields>[]): StateValue<TFields>;
}

function checkStep(name: string, fields: StateFields, updates: readonly Readonly<Record<string, unknown>>[]): void {
  const written = new Map<string, 'single' | 'overwrite'>();
  for (const u of updates) {
    for (const key of Object.keys(u)) {
      const f = fields[key] as Field<unknown, unknown> | undefined;
      if (f === undefined || !Object.hasOwn(fields, key)) throw new InvalidUpdateError(name, key, `the state has no such field (fields: ${Object.keys(fields).join(', ')})`);
      const kind = isOverwrite(u[key]) ? 'overwrite' : f.reducer === undefined ? 'single' : undefined;
      if (kind === undefined) continue;
      if (written.has(key)) {
        throw new InvalidUpdateError(
          name,
          key,
          kind === 'overwrite' || written.get(key) === 'overwrite'
            ? 'overwritten twice, or written and overwritten, in one step; only one overwrite per field and step'
            : 'has a single writer (no reducer) and two updates wrote it in one step; give it a reducer to merge concurrent writes',
        );
      }
      written.set(key, kind);
    }
  }
}

/**
 * Declares a partial-update state: one frozen object in a state slice, changed by events that
 * carry partial updates. Several updates in one step (`updateMany`) merge field by field through
 * each field's reducer (`add`, `dictMerge`, `setUnion` or a custom one), so parallel writers never
 * lose an update; a field without a reducer accepts one write per step, and a second is an
 * {@link InvalidUpdateError} with nothing changed; `overwrite(value)` bypasses a reducer.
 *
 * @remarks After LangGraph's channels and reducers (`Annotation` with `reducer`, `LastValue`,
 * `Overwrite`, `INVALID_CONCURRENT_GRAPH_UPDATE`), as a slice: snapshots, restore, windows'
 * neighbours, durable storage and the flight recorder cover it. Updates are validated with the
 * fields' update schemas when the session validates events; the merged value with the state's
 * schema (every field's schema), as any slice item.
 * @throws {@link InvalidUpdateError} from `update`/`updateMany` (and, for a hand-made event, from the
 * reducer, reported as `ReducerError`) on a conflict or an unknown field.
 * @example
 * ```ts
 * const Execution = defineState('execution', {
 *   status: field(z.enum(['running', 'completed']), { default: 'running' }),
 *   toolCalls: field(z.array(ToolCall), { reducer: add, default: [] }),
 * });
 * session.dispatch(Execution.updateMany([{ toolCalls: [a] }, { toolCalls: [b], status: 'completed' }]));
 * session.slice(Execution).latest(); // { status: 'completed', toolCalls: [a, b] }
 * ```
 */
export function defineState<const TName extends string, const TFields extends StateFields>(name: TName, fields: TFields): StateDef<TName, TFields> {
  if (fields === null || typeof fields !== 'object' || Object.keys(fields).length === 0) throw new InvalidUpdateError(String(name), '(none)', 'a state needs at least one field');
  const keys = Object.keys(fields);
  for (const key of keys) {
    const f = fields[key] as Field<unknown> | undefined;
    if (typeof f?.schema?.safeParse !== 'function') throw new InvalidUpdateError(name, key, 'every field must be made with field(schema, { default })');
    const ok = f.schema.safeParse(f.default);
    if (!ok.success) throw new InvalidUpdateError(name, key, `its default does not match its schema (${ok.error.issues[0]?.message ?? 'invalid'})`);
  }
  const defaults = Object.freeze(Object.fromEntries(keys.map((k) => [k, (fields[k] as Field<unknown>).default]))) as StateValue<TFields>;
  const valueSchema = z.object(Object.fromEntries(keys.map((k) => [k, (fields[k] as Field<unknown>).schema]))) as unknown as z.ZodType<StateValue<TFields>>;
  const updateSchema = z
    .object(
      Object.fromEntries(
        keys.map((k) => {
          const f = fields[k] as Field<unknown>;
          return [k, z.union([z.object({ [OVERWRITE]: f.schema }).strict(), f.updateSchema]).optional()];
        }),
      ),
    )
    .strict();
  const Updated = defineEvent(`${name}/updated` as `${TName}/updated`, z.object({ updates: z.array(updateSchema) }));

  const apply = (value: StateValue<TFields>, updates: readonly StateUpdate<TFields>[]): StateValue<TFields> => {
    checkStep(name, fields, updates as readonly Record<string, unknown>[]);
    let next: Record<string, unknown> | undefined;
    for (const u of updates as readonly Record<string, unknown>[]) {
      for (const key of Object.keys(u)) {
        const f = fields[key] as Field<unknown, unknown>;
        const current = (next ?? (value as Readonly<Record<string, unknown>>))[key];
        const raw = u[key];
        const merged = isOverwrite(raw) ? raw[OVERWRITE] : f.reducer === undefined ? raw : f.reducer(current, raw);
        if (merged !== current) (next ??= { ...value })[key] = merged;
      }
    }
    return (next ?? value) as StateValue<TFields>;
  };

  const slice = defineSlice<StateValue<TFields>, TName>(name, {
    policy: 'state',
    schema: valueSchema,
    initial: [defaults],
    reducers: ({ on }) => [
      on(
        Updated,
        (view, e) => {
          const current = view.latest() ?? defaults;
          const next = apply(current, e.payload.updates as readonly StateUpdate<TFields>[]);
          return next === current ? none() : replace([next]);
        },
        `${name}.update`,
      ),
    ],
  });
  const make = (updates: readonly StateUpdate<TFields>[]) => {
    checkStep(name, fields, updates as readonly Record<string, unknown>[]);
    return Updated({ updates: updates as unknown as { [x: string]: unknown }[] });
  };
  return Object.freeze({
    ...slice,
    fields,
    defaults,
    Updated,
    update: (u: StateUpdate<TFields>) => make([u]),
    updateMany: (us: readonly StateUpdate<TFields>[]) => make(us),
    apply,
  }) as unknown as StateDef<TName, TFields>;
}
