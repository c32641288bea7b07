import type { z } from 'zod';
import type { AnyEventCreator, InferPayload } from '../events/event';
import { toIssues } from '../internal/errors';
import { InvalidEventError, InvalidMiddlewareError } from './errors';
import type { EventMiddleware } from './event-pipeline';
import type { MiddlewareSet } from './middleware-set';
import { defineMiddleware } from './define-middleware';

/** One rule of {@link validationMiddleware}: an event creator and the zod schema its payloads must pass. */
export type ValidationRule = readonly [AnyEventCreator, z.ZodType];

/**
 * `TRule` when its schema accepts the creator's payload type (the payload is assignable to the
 * schema's input), else the shape it should have, so that the mismatch is reported on the schema.
 */
export type CheckedValidationRule<TRule> = TRule extends readonly [infer TCreator, infer TSchema extends z.ZodType]
  ? [InferPayload<TCreator>] extends [z.input<TSchema>]
    ? TRule
    : readonly [TCreator, z.ZodType<unknown, InferPayload<TCreator>>]
  : ValidationRule;

/**
 * Event middleware that checks the payloads of the given events with zod schemas, before any
 * reducer runs: for business rules beyond the event's own schema (non-empty lists, lengths,
 * ASCII-only commands), kept apart from the event definitions, as the design documents'
 * `ValidationMiddleware({ SetupPlan: ..., AddStep: ... })` keeps them.
 *
 * @remarks Synchronous, once per application event (library `rxslice.*` events bypass it). An
 * event whose type has no rule passes untouched. A payload that fails its schema is refused:
 * `dispatch` throws an {@link InvalidEventError} (`refusedBy: 'validation middleware'`, the
 * event type, zod's issues as data: `code`, `path`, `message`), reported on `errors$`; nothing
 * changes and no `seq` is taken. A passing payload goes on **as dispatched**: the schema checks,
 * its transforms and defaults are not applied. It runs where it is registered among the event
 * middleware: middleware before it sees every event, middleware after it only valid ones.
 * Two rules for one event type both apply (in order). An async schema (async refine) throws.
 * @param rules - `[creator, schema]` pairs. Each schema must accept the creator's payload type
 * (checked by TypeScript: it may name only some fields, `z.object` ignores the others).
 * @returns A {@link MiddlewareSet} for `session.use(...)` or `createSession({ middleware })`.
 * @throws {@link InvalidMiddlewareError} when a rule is not a `[creator, schema]` pair.
 * @example
 * ```ts
 * const title = z.string().trim().min(1, 'title must not be empty').max(500, 'title must be at most 500 characters');
 * session.use(validationMiddleware([[StepsAdded, z.object({ steps: z.array(title).min(1) })]]));
 * session.dispatch(StepsAdded({ steps: [''] }));
 * // throws InvalidEventError: Event "plan/stepsAdded" was refused by the validation middleware
 * // (steps.0: title must not be empty). Nothing was changed and no seq was taken.
 * ```
 */
export function validationMiddleware<const TRules extends readonly ValidationRule[]>(rules: TRules & { readonly [K in keyof TRules]: CheckedValidationRule<TRules[K]> }): MiddlewareSet {
  if (!Array.isArray(rules)) throw new InvalidMiddlewareError(0, typeof rules, 'session', 'validationMiddleware takes an array of [EventCreator, zodSchema] pairs');
  const byType = new Map<string, z.ZodType[]>();
  (rules as readonly unknown[]).forEach((rule, i) => {
    const [creator, schema] = Array.isArray(rule) ? (rule as unknown[]) : [];
    const type = typeof creator === 'function' ? (creator as { type?: unknown }).type : undefined;
    if (rule === null || !Array.isArray(rule) || rule.length !== 2 || typeof type !== 'string' || typeof (schema as { safeParse?: unknown } | null)?.safeParse !== 'function') {
      throw new InvalidMiddlewareError(0, 'an array', 'session', `validationMiddleware rule ${i} is not an [EventCreator, zodSchema] pair, e.g. [StepAdded, z.object({ step: z.string().min(1) })]`);
    }
    const list = byType.get(type);
    if (list === undefined) byType.set(type, [schema as z.ZodType]);
    else list.push(schema as z.ZodType);
  });
  const validate: EventMiddleware = (env, next) => {
    const schemas = byType.get(env.event.type);
    if (schemas !== undefined) {
      for (const schema of schemas) {
        const result = schema.safeParse(env.event.payload);
        if (!result.success) throw new InvalidEventError(env.event.type, toIssues(result.error.issues), undefined, 'validation middleware');
      }
    }
    next(env);
  };
  // Links the event middleware runtime, so that a store (createStore) takes it too.
  return defineMiddleware({ events: [validate] });
}
