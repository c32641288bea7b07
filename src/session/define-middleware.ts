import { linkLayer, PIPELINE_LAYER, type PipelineLayer } from './feature-layers';
import { MiddlewareStack } from './middleware-stack';
import type { MiddlewareSet } from './middleware-set';

/** The event and operator middleware runtime, as {@link linkPipelines} links it. */
const pipelines: PipelineLayer = { stack: (core, events, operators) => new MiddlewareStack(core, events, operators) };

/** @internal Links the event and operator middleware runtime for the stores of this program (`createSession` calls it). */
export function linkPipelines(): void {
  linkLayer(PIPELINE_LAYER, pipelines);
}

/**
 * Returns `set` as given, and links the runtime of event and operator middleware into the
 * program (once, at the first call): what `createStore({ middleware })` and `store.use(...)`
 * need before they take `events` or `operators` (docs/SIZE.md). A store's bundle holds that
 * runtime (the event and operator pipelines, about 1.3 KB gzip) only when the app calls this;
 * `createSession` links it itself, and reducer middleware never needs it.
 *
 * @param set - The middleware by kind (see {@link MiddlewareSet}); not copied nor checked here
 * (`use` and `createStore` check it, as they check any set).
 * @returns `set`, for `store.use(...)`, `createStore({ middleware })` or `createSession({ middleware })`.
 * @example
 * ```ts
 * const store = createStore({ slices: [Messages], middleware: defineMiddleware({ operators: [filter((env) => env.event.type !== 'debug/pinged')] }) });
 * store.use(defineMiddleware({ events: [(env, next) => { console.log(`#${env.seq} ${env.event.type}`); next(env); }] }));
 * // Without defineMiddleware (and without createSession in the program), a store refuses
 * // events or operators with a TypeError that names it.
 * ```
 */
export function defineMiddleware<const TSet extends MiddlewareSet>(set: TSet): TSet {
  linkPipelines();
  return set;
}
