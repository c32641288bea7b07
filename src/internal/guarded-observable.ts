import { config, Observable, Subscriber, Subscription, type Observer, type Operator, type TeardownLogic } from 'rxjs';

/**
 * Told when a subscriber of the observable named `source` threw (or its chain failed with no
 * `error` callback). The session reports it on `errors$` (see `SubscriberError`).
 */
export type SubscriberFailureReporter = (source: string, error: unknown) => void;

/**
 * Hands `error` to RxJS's unhandled-error hook as RxJS itself does: asynchronously, to
 * `config.onUnhandledError`, else rethrown from a timer (which ends a Node process).
 */
export function reportUnhandled(error: unknown): void {
  setTimeout(() => {
    const { onUnhandledError } = config;
    if (onUnhandledError) onUnhandledError(error);
    else throw error;
  });
}

/** RxJS's own test (`isSubscriber`): a `Subscriber`, also from another copy of RxJS. */
function isSubscriber(value: unknown): boolean {
  if (value instanceof Subscriber) return true;
  if (value === null || typeof value !== 'object') return false;
  const v = value as Record<string, unknown>;
  return (
    typeof v['next'] === 'function' &&
    typeof v['error'] === 'function' &&
    typeof v['complete'] === 'function' &&
    typeof v['closed'] === 'boolean' &&
    typeof v['add'] === 'function' &&
    typeof v['remove'] === 'function' &&
    typeof v['unsubscribe'] === 'function'
  );
}

/**
 * @internal A listener attached directly to a multicast source (see {@link DirectAttach}):
 * `closed` once its subscription ended, after which it ignores `next` and `complete`.
 */
export interface DirectListener<T> {
  readonly closed: boolean;
  next(value: T): void;
  complete(): void;
}

/**
 * @internal Attaches `listener` to the source (which may call `listener.next` or `complete` at
 * once, e.g. to replay its current value) and returns the function that detaches it, or
 * `undefined` when there is nothing to detach.
 */
export type DirectAttach<T> = (listener: DirectListener<T>) => (() => void) | undefined;

type NextFn<T> = (this: unknown, value: T) => void;
type ErrorFn = (this: unknown, error: unknown) => void;
type CompleteFn = (this: unknown) => void;

/**
 * @internal An observable whose subscribers' failures go to the session rather than to RxJS's
 * unhandled-error hook. A subscriber's `next`/`complete` callback that throws, or an `error`
 * notification reaching a subscriber without an `error` callback, is passed to `report`
 * (RxJS would rethrow it from a timer); the other subscribers are not affected.
 *
 * Chains piped from it stay guarded: `lift` (which RxJS 7's own operators go through) returns
 * another guarded observable, so in `source.pipe(map(f)).subscribe(g)` a throwing `f` or `g` is
 * reported too. Operators that build a plain `new Observable` around their source leave the
 * guard, and their subscribers fail the RxJS way. Subscribers that RxJS makes itself (operator
 * chains, `firstValueFrom`, `forEach`) are passed through untouched: they handle errors themselves.
 */
export class GuardedObservable<T> extends Observable<T> {
  /**
   * @param direct - How a subscriber given as callbacks attaches to the source without an RxJS
   * `Subscriber` in between (one call per value instead of four; slice and computed observables
   * pass it). Subscribers RxJS makes (operator chains) still go through `subscribe`.
   */
  constructor(
    private readonly label: string,
    private readonly report: SubscriberFailureReporter,
    subscribe?: (this: Observable<T>, subscriber: Subscriber<T>) => TeardownLogic,
    private readonly direct?: DirectAttach<T>,
  ) {
    super(subscribe);
  }

  /** @internal Keeps piped chains guarded (see the class). */
  override lift<R>(operator?: Operator<T, R>): Observable<R> {
    const lifted = new GuardedObservable<R>(this.label, this.report);
    lifted.source = this;
    lifted.operator = operator;
    return lifted;
  }

  override subscribe(observerOrNext?: Partial<Observer<T>> | ((value: T) => void)): Subscription;
  /** @deprecated As in RxJS: pass an observer object instead of separate callbacks. */
  override subscribe(next?: ((value: T) => void) | null, error?: ((error: unknown) => void) | null, complete?: (() => void) | null): Subscription;
  override subscribe(observerOrNext?: unknown, errorFn?: unknown, completeFn?: unknown): Subscription {
    if (isSubscriber(observerOrNext)) return super.subscribe(observerOrNext as Subscriber<T>);
    let context: unknown;
    let next: NextFn<T> | undefined;
    let error: ErrorFn | undefined;
    let complete: CompleteFn | undefined;
    if (observerOrNext !== null && typeof observerOrNext === 'object') {
      const observer = observerOrNext as { next?: NextFn<T>; error?: ErrorFn; complete?: CompleteFn };
      context = observer;
      next = observer.next;
      error = observer.error;
      complete = observer.complete;
    } else {
      next = typeof observerOrNext === 'function' ? (observerOrNext as NextFn<T>) : undefined;
      error = typeof errorFn === 'function' ? (errorFn as ErrorFn) : undefined;
      complete = typeof completeFn === 'function' ? (completeFn as CompleteFn) : undefined;
    }
    const { label, report } = this;
    if (this.direct !== undefined) return this.attach(this.direct, next, complete, context);
    return super.subscribe({
      next(value: T) {
        if (next === undefined) return;
        try {
          next.call(context, value);
        } catch (e) {
          report(label, e);
        }
      },
      error(e: unknown) {
        if (error === undefined) {
          report(label, e);
          return;
        }
        try {
          error.call(context, e);
        } catch (thrown) {
          report(label, thrown);
        }
      },
      complete() {
        if (complete === undefined) return;
        try {
          complete.call(context);
        } catch (e) {
          report(label, e);
        }
      },
    });
  }

  /**
   * Subscribes `next`/`complete` (called on `context`) straight to the source: a throwing
   * callback is reported and the listener stays; after `unsubscribe()` (or `complete`) nothing
   * more is delivered, also within an emission that is under way.
   */
  private attach(direct: DirectAttach<T>, next: NextFn<T> | undefined, complete: CompleteFn | undefined, context: unknown): Subscription {
    const { label, report } = this;
    let detach: (() => void) | undefined;
    const listener = {
      closed: false,
      next(value: T): void {
        if (listener.closed || next === undefined) return;
        try {
          next.call(context, value);
        } catch (e) {
          report(label, e);
        }
      },
      complete(): void {
        if (listener.closed) return;
        listener.closed = true;
        try {
          complete?.call(context);
        } catch (e) {
          report(label, e);
        }
        subscription.unsubscribe();
      },
    };
    const subscription = new Subscription(() => {
      listener.closed = true;
      detach?.();
    });
    detach = direct(listener);
    if (listener.closed) detach?.();
    return subscription;
  }

}
