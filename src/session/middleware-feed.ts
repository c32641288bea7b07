import type { SchedulerLike, Subscription } from 'rxjs';
import type { Envelope } from '../events/envelope';

/**
 * @internal What the middleware pipelines need of the session core (`SessionCore` has it): they
 * name this rather than the core, so that the core imports them and they never import it back.
 */
export interface PipelineCore {
  /** True while the core is inside its drain (reducing an envelope). */
  readonly busy: boolean;
  /** Torn down with the session. */
  readonly subscriptions: Subscription;
  /** The session's scheduler (a replaced operator chain completes on it). */
  readonly scheduler: SchedulerLike;
  /** Reduces an application envelope handed on unchanged inside the drain. */
  reduce(env: Envelope): void;
  /** Checks and reduces an envelope that came out of middleware. */
  reduceEntered(env: Envelope): void;
  /** Reports a middleware failure for the envelope it belongs to (in `pipeline`, default the one in force). */
  middlewareFailed(cause: unknown, kind?: 'operator middleware' | 'event middleware', pipeline?: MiddlewareFeed): void;
}

/**
 * @internal What the core asks of its middleware (event or operator) when one fails: which
 * envelope the failure belongs to. Both pipelines keep it the same way.
 */
export abstract class MiddlewareFeed {
  /**
   * The last envelope fed in: the one being fed while {@link feeding} is true (a failure now is
   * its failure), else the one a later, asynchronous failure is reported with.
   */
  protected lastFed: Envelope | undefined = undefined;
  /** Whether {@link lastFed} is being fed in now (a flag, not a second reference: one store fewer of a new object into this long-lived one per envelope). */
  protected feeding = false;

  /** The envelope an error now belongs to: the one being fed in, else the last one fed in. */
  get current(): Envelope | undefined {
    return this.lastFed;
  }

  /** Whether an error now belongs to the envelope being fed in (synchronous with a dispatch). */
  get isFeeding(): boolean {
    return this.feeding;
  }

  /** Feeds `env` into the middleware. */
  abstract feed(env: Envelope): void;
}

/**
 * @internal What the middleware stack (./middleware-stack.ts) needs of the session core besides
 * what the pipelines need: the pipeline the core feeds, and whether it must be rebuilt before
 * the next envelope. Named here for the reason given at {@link PipelineCore}.
 */
export interface StackCore extends PipelineCore {
  pipeline: MiddlewareFeed | undefined;
  pipelineStale: boolean;
  readonly disposed: boolean;
}
