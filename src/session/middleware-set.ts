import type { OperatorFunction } from 'rxjs';
import type { Envelope } from '../events/envelope';
import type { ReducerMiddleware } from '../slices/reducer';
import { InvalidMiddlewareError } from './errors';
import type { EventMiddleware } from './event-pipeline';
import { quote } from '../internal/quote';

/**
 * Middleware of every kind a session runs, grouped by kind: what `createSession({ middleware })`
 * takes, and what `session.use(...)` takes to add them at run time (a plugin). The kinds cannot
 * be told apart at run time (an event middleware and a reducer middleware are both functions of
 * two arguments), so the key names the kind.
 *
 * - `events`: {@link EventMiddleware} `(envelope, next) => void`, once per application event,
 *   before the operator middleware.
 * - `operators`: RxJS operators `OperatorFunction<Envelope, Envelope>` on the envelope stream
 *   (filter, delay, throttle, enrich), after the event middleware.
 * - `reducers`: {@link ReducerMiddleware} `(ctx, next) => SliceOp` around every slice's reducers.
 *
 * Each runs in order, the first outermost (event and reducer middleware) or first in the pipe
 * (operators). Library events (`rxslice.*`) bypass event and operator middleware.
 * @example
 * ```ts
 * const audit: MiddlewareSet = {
 *   events: [(env, next) => { console.log(`#${env.seq} ${env.event.type}`); next(env); }],
 *   operators: [filter((env) => env.event.type !== 'debug/pinged')],
 * };
 * const stop = session.use(audit); // from the next event on
 * session.dispatch(StepAdded({ step: 'a' })); // Logs: #1 plan/step-added
 * stop();
 * ```
 */
export interface MiddlewareSet {
  readonly events?: readonly EventMiddleware[];
  readonly operators?: readonly OperatorFunction<Envelope, Envelope>[];
  readonly reducers?: readonly ReducerMiddleware[];
}

/** @internal What one `use` call adds, by kind, in argument order. */
export interface UsedMiddleware {
  readonly events: EventMiddleware[];
  readonly operators: OperatorFunction<Envelope, Envelope>[];
  readonly reducers: ReducerMiddleware[];
}

const KINDS = ['events', 'operators', 'reducers'] as const;

const typeName = (value: unknown): string => (value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value);

/**
 * @internal Checks the arguments of `session.use` (`scope` `'session'`: functions are reducer
 * middleware, objects are {@link MiddlewareSet}s) or `slice(def).use` (`'slice'`: reducer
 * middleware functions only) and sorts them by kind. Reads each argument once.
 * @throws {@link InvalidMiddlewareError} for anything else, or when the call adds nothing.
 */
export function sortMiddleware(args: readonly unknown[], scope: 'session' | 'slice'): UsedMiddleware {
  const used: UsedMiddleware = { events: [], operators: [], reducers: [] };
  args.forEach((arg, index) => {
    if (typeof arg === 'function') {
      used.reducers.push(arg as ReducerMiddleware);
      return;
    }
    if (scope === 'slice' || arg === null || typeof arg !== 'object' || Array.isArray(arg)) {
      throw new InvalidMiddlewareError(index, scope === 'slice' && arg !== null && typeof arg === 'object' ? 'an object' : typeName(arg), scope);
    }
    const set = arg as Record<string, unknown>;
    for (const key of Object.keys(set)) {
      if (!(KINDS as readonly string[]).includes(key)) {
        throw new InvalidMiddlewareError(index, 'an object', scope, `has key ${quote(key)} (the kinds are events, operators and reducers)`);
      }
    }
    for (const kind of KINDS) {
      const list = set[kind];
      if (list === undefined) continue;
      if (!Array.isArray(list)) throw new InvalidMiddlewareError(index, 'an object', scope, `has ${quote(kind)} that is not an array (got ${typeName(list)})`);
      list.forEach((m: unknown, i) => {
        if (typeof m !== 'function') throw new InvalidMiddlewareError(index, 'an object', scope, `has ${kind}[${i}] that is not a function (got ${typeName(m)})`);
      });
      (used[kind] as unknown[]).push(...(list as unknown[]));
    }
  });
  if (used.events.length + used.operators.length + used.reducers.length === 0) throw new InvalidMiddlewareError(-1, 'nothing', scope);
  return used;
}
