import { Observable, type OperatorFunction, type Subscriber, type Subscription } from 'rxjs';
import type { Envelope } from '../events/envelope';
import { MiddlewareFeed, type PipelineCore } from './middleware-feed';

/**
 * @internal The session's operator middleware: a multicast input (see {@link EnvelopeSource}) piped through the operators,
 * with the core's reduce step subscribed to the output.
 *
 * An RxJS chain that errors is finished for good, so a throwing middleware would otherwise
 * switch the session off. Instead:
 * - an error while an envelope is being fed in rejects that envelope: the core reports it on
 *   `errors$` and, for the top-level dispatch, `dispatch` throws it;
 * - an error at any other time (a delayed envelope failing later on the scheduler) is reported
 *   on `errors$`, attributed to the last envelope fed in;
 * - after an error (or a completion) the chain is resubscribed lazily, right before the next
 *   envelope is fed in. If resubscribing fails (an operator that errors on subscribe), that
 *   envelope is rejected the same way; nothing loops, the next envelope tries again.
 * Envelopes the chain held when it failed (delayed ones) are lost with it.
 *
 * When operator middleware is added or removed at run time, the session builds a new pipeline
 * and {@link OperatorPipeline.retire | retires} this one: nothing is fed into it any more, its
 * input completes, and what its operators hold still reaches the reduce step, once.
 */
export class OperatorPipeline extends MiddlewareFeed {
  private readonly input = new EnvelopeSource();
  private readonly output: Observable<Envelope>;
  private subscription: Subscription | undefined = undefined;
  private connected = false;
  private retired = false;
  /** Registered with the session: disposing the session ends the chain, whatever it holds. */
  private readonly teardown = (): void => this.subscription?.unsubscribe();

  constructor(
    private readonly core: PipelineCore,
    operators: readonly OperatorFunction<Envelope, Envelope>[],
  ) {
    super();
    this.output = operators.reduce<Observable<Envelope>>((source, op) => source.pipe(op), this.input);
    core.subscriptions.add(this.teardown);
    // Eagerly, as a middleware may emit as soon as it is subscribed; a failure here is
    // reported and retried before the first envelope.
    this.connect();
  }

  /** Feeds `env` into the middleware, resubscribing it first if it errored or completed. */
  feed(env: Envelope): void {
    this.lastFed = env;
    this.feeding = true;
    try {
      if (this.connected || this.connect()) this.input.next(env);
    } finally {
      this.feeding = false;
    }
  }

  /**
   * Takes this chain out of service (another replaced it; nothing is fed in any more): its input
   * completes, so its operators let go of what they hold as they do on completion (a delay on
   * time, a debounce at once), and it is unsubscribed when it completes or fails (never
   * resubscribed). The completion is scheduled on the session's scheduler, never done now: this
   * may be called from inside the chain's own emission, which completing could cut short.
   */
  retire(): void {
    this.retired = true;
    if (!this.connected) {
      this.end();
      return;
    }
    this.core.scheduler.schedule(() => this.input.complete());
  }

  /** Subscribes the reduce step to the output; false when the chain failed (or completed) at once. */
  private connect(): boolean {
    this.subscription?.unsubscribe();
    this.connected = true;
    const subscription = this.output.subscribe({
      next: (env) => this.core.reduceEntered(env),
      error: (error: unknown) => {
        this.connected = false;
        this.core.middlewareFailed(error, 'operator middleware', this);
        if (this.retired) this.end();
      },
      complete: () => {
        this.connected = false;
        if (this.retired) this.end();
      },
    });
    if (this.connected) this.subscription = subscription;
    else subscription.unsubscribe();
    return this.connected;
  }

  /** Lets the session forget a retired chain that holds nothing any more. */
  private end(): void {
    this.subscription?.unsubscribe();
    this.subscription = undefined;
    this.core.subscriptions.remove(this.teardown);
  }
}

/**
 * @internal The operator chain's source: multicast like a `Subject` (every subscription an
 * operator makes to its source receives every envelope fed in, in subscription order; one made
 * after `complete()` completes at once), but a feed is a plain loop over the subscribers. RxJS's
 * `Subject.next` allocates a closure per value (`errorContext`) and, in the CommonJS build that
 * Node loads, iterates its observers through a downlevelled `for…of`: about a third of the
 * operator middleware's own cost per envelope. The subscriber list is copied on write, so a
 * subscription made or ended while an envelope is fed neither receives nor misses that one.
 */
class EnvelopeSource extends Observable<Envelope> {
  private subscribers: readonly Subscriber<Envelope>[] = [];
  private completed = false;

  constructor() {
    super((subscriber) => {
      if (this.completed) {
        subscriber.complete();
        return undefined;
      }
      this.subscribers = [...this.subscribers, subscriber];
      return () => {
        this.subscribers = this.subscribers.filter((s) => s !== subscriber);
      };
    });
  }

  /** Hands `env` to every subscriber (nothing after `complete()`). */
  next(env: Envelope): void {
    const subscribers = this.subscribers;
    for (let i = 0; i < subscribers.length; i++) (subscribers[i] as Subscriber<Envelope>).next(env);
  }

  /** Completes every subscriber; later subscriptions complete at once. */
  complete(): void {
    if (this.completed) return;
    this.completed = true;
    const subscribers = this.subscribers;
    this.subscribers = [];
    for (let i = 0; i < subscribers.length; i++) (subscribers[i] as Subscriber<Envelope>).complete();
  }
}
