import type { Envelope } from '../events/envelope';

/**
 * @internal What the core asks of its middleware (event or operator) when one fails: which
 * envelope the failure belongs to. Both pipelines keep it the same way.
 */
export abstract class MiddlewareFeed {
  /** The envelope being fed in (a failure now is its failure). */
  protected feeding: Envelope | undefined = undefined;
  /** The last envelope fed in (a later, asynchronous failure is reported with it). */
  protected lastFed: Envelope | undefined = undefined;

  /** The envelope an error now belongs to: the one being fed in, else the last one fed in. */
  get current(): Envelope | undefined {
    return this.feeding ?? this.lastFed;
  }

  /** Whether an error now belongs to the envelope being fed in (synchronous with a dispatch). */
  get isFeeding(): boolean {
    return this.feeding !== undefined;
  }

  /** Feeds `env` into the middleware. */
  abstract feed(env: Envelope): void;
}
