import { Observable, type Subscriber } from 'rxjs';

const NO_SUBSCRIBERS: readonly Subscriber<any>[] = Object.freeze([]);

/**
 * @internal A replaying multicast source, lighter than a `BehaviorSubject` on the hot path:
 * `emit` calls the subscribers directly (no `errorContext` closure, no observer-array copy per
 * emission). `observable(current)` makes the public face: each subscriber first gets
 * `current()`, then every later `emit`.
 *
 * Semantics kept from `BehaviorSubject`: synchronous replay on subscribe; a subscriber added
 * during an emission does not get that emission (the list is copied on write); one that
 * unsubscribes during an emission gets nothing more; errors thrown by a subscriber's callback
 * are reported by RxJS (`config.onUnhandledError`, asynchronously), never to the emitter; after
 * `complete()` new subscribers complete at once, without a value.
 */
export class Emitter<T> {
  private subscribers: readonly Subscriber<T>[] = NO_SUBSCRIBERS;
  private completed = false;

  /** Whether anyone is subscribed. */
  get observed(): boolean {
    return this.subscribers.length > 0;
  }

  /** Sends `value` to the current subscribers, in subscription order. */
  emit(value: T): void {
    const subscribers = this.subscribers;
    for (let i = 0; i < subscribers.length; i++) (subscribers[i] as Subscriber<T>).next(value);
  }

  /** An observable that replays `current()` on subscribe, then follows `emit`. */
  observable(current: () => T): Observable<T> {
    return new Observable<T>((subscriber) => {
      if (this.completed) {
        subscriber.complete();
        return undefined;
      }
      subscriber.next(current());
      if (subscriber.closed) return undefined;
      this.subscribers = [...this.subscribers, subscriber];
      return () => {
        this.subscribers = this.subscribers.filter((s) => s !== subscriber);
      };
    });
  }

  /** Completes every subscriber; later subscribers complete at once. Idempotent. */
  complete(): void {
    if (this.completed) return;
    this.completed = true;
    const subscribers = this.subscribers;
    this.subscribers = NO_SUBSCRIBERS;
    for (const subscriber of subscribers) subscriber.complete();
  }
}
