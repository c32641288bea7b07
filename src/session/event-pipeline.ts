import { codedMessage } from '../internal/coded-message';
import { DEV } from '../internal/dev';
import type { Envelope } from '../events/envelope';
import { MiddlewareFeed, type PipelineCore } from './middleware-feed';

/**
 * Event middleware: a function that sees each application event once, before reducers, and
 * hands it on with `next` (changed or as it is), or does not (the event is dropped). The cheap
 * kind for what runs once per event (logging, metrics, checks): no RxJS subject in between.
 *
 * @remarks Calls are synchronous with the dispatch. `next` may also be called later (after a
 * delay): the event is reduced then, as a delayed operator-middleware envelope is. A middleware
 * that throws rejects that event (`dispatch` throws a `ReducerError` with `reducerName`
 * `'event middleware'`, reported on `errors$`); calling `next` twice with the same envelope is
 * such a failure too. Library events (`rxslice.*`) bypass it, as they bypass operator middleware.
 * @example
 * ```ts
 * const log: EventMiddleware = (env, next) => {
 *   console.log(`#${env.seq} ${env.event.type}`);
 *   next(env);
 * };
 * createSession({ slices, middleware: { events: [log] } });
 * const unplug = session.use({ events: [log] }); // or later, from the next event (returns a disposer)
 * ```
 */
export type EventMiddleware = (envelope: Envelope, next: (envelope: Envelope) => void) => void;

/**
 * @internal The layer after the event middleware: the operator middleware in force (read each
 * time an envelope is handed on, so one handed on late goes to the operators in force then).
 */
export interface OperatorLayer {
  readonly operators: MiddlewareFeed | undefined;
}

/**
 * @internal The session's event middleware, composed once into one function that ends in the
 * operator middleware in force (`layer.operators`) when there is some, else in the reduce step.
 * Shows the same face to the core as the operator pipeline: the envelope being fed in, for error
 * reports. Replaced (not changed) when event middleware is added or removed at run time; a
 * replaced one still hands on what its middleware pass to `next` later.
 */
export class EventPipeline extends MiddlewareFeed {
  /** The first middleware, called directly by {@link feed} (one closure call fewer per event). */
  private readonly first: EventMiddleware;
  /** The `next` the first middleware is given: the rest of the chain, ending in the operator layer or the reduce step. */
  private readonly firstNext: (env: Envelope) => void;
  /**
   * Whether {@link lastFed} was handed downstream already: a flag, not a reference, so the usual
   * envelope (fed in and handed on unchanged) costs no store of it into this long-lived object
   * besides {@link lastFed}'s.
   */
  private handedOn = false;
  /** The last envelope handed downstream other than {@link lastFed}: the same one again means `next` was called twice. */
  private lastOut: Envelope | undefined = undefined;

  /**
   * @param middlewares - At least one.
   * @param layer - Where the operator middleware in force is read; with none, the envelope fed
   * in, handed on unchanged and synchronously, is reduced directly (it is an application event,
   * and the core is inside its drain); any other goes through the core's checks for envelopes
   * coming out of middleware.
   */
  constructor(
    private readonly core: PipelineCore,
    middlewares: readonly EventMiddleware[],
    private readonly layer: OperatorLayer,
  ) {
    super();
    let chain = (env: Envelope): void => {
      // The usual case: the envelope being fed in, handed on unchanged and synchronously.
      if (env === this.lastFed && this.feeding && !this.handedOn) {
        this.handedOn = true;
        const operators = layer.operators;
        if (operators !== undefined) operators.feed(env);
        else if (core.busy) core.reduce(env);
        else core.reduceEntered(env);
        return;
      }
      this.handOn(env);
    };
    for (let i = middlewares.length - 1; i >= 1; i--) {
      const middleware = middlewares[i] as EventMiddleware;
      const next = chain;
      chain = (env) => middleware(env, next);
    }
    this.first = middlewares[0] as EventMiddleware;
    this.firstNext = chain;
  }

  /** Hands on an envelope other than the one being fed in unchanged (changed, or late), once. */
  private handOn(env: Envelope): void {
    if (env === this.lastOut || (env === this.lastFed && this.handedOn)) {
      this.core.middlewareFailed(new Error(!DEV ? codedMessage('E54', `#${env.seq}`) : `event middleware called next twice with envelope #${env.seq}`), 'event middleware', this);
      return;
    }
    this.lastOut = env;
    if (env === this.lastFed) this.handedOn = true;
    const operators = this.layer.operators;
    if (operators !== undefined) operators.feed(env);
    else this.core.reduceEntered(env);
  }

  /** Runs the middleware on `env`; a throw rejects it (reported by the core). */
  feed(env: Envelope): void {
    this.lastFed = env;
    this.handedOn = false;
    this.feeding = true;
    try {
      this.first(env, this.firstNext);
    } catch (cause) {
      this.core.middlewareFailed(cause, 'event middleware', this);
    } finally {
      this.feeding = false;
    }
  }
}
