import { Observable } from 'rxjs';
import { GuardedObservable, reportUnhandled, type DirectListener, type SubscriberFailureReporter } from './guarded-observable';

/** @internal What an {@link Emitter} calls: an RxJS subscriber, or any object of this shape. */
export interface EmitterListener<T> {
  next(value: T): void;
  complete(): void;
}

const NO_LISTENERS: readonly EmitterListener<any>[] = Object.freeze([]);

/** Names an emitter's observable and says where its subscribers' failures go (see {@link GuardedObservable}). */
export interface SubscriberGuard {
  readonly label: string;
  readonly report: SubscriberFailureReporter;
}

/**
 * @internal A multicast source lighter than a `Subject` on the hot path: `emit` calls the
 * listeners directly (no `errorContext` closure, no observer-array copy per emission). Used by
 * slice observables (`all$`, `latest$`) and computed slices (`value$`).
 *
 * Semantics kept from RxJS subjects: listeners are called in the order they were added; one added
 * during an emission does not get that emission (the list is copied on write); one removed during
 * an emission gets nothing more (an RxJS subscriber ignores notifications once unsubscribed); a
 * listener that throws is reported (to the guard's `report` when the observable has a guard,
 * else like an unhandled RxJS error) and the others still get the value; after `complete()` a
 * new listener completes at once.
 */
export class Emitter<T> {
  private listeners: readonly EmitterListener<T>[] = NO_LISTENERS;
  private completed = false;
  private guard: SubscriberGuard | undefined = undefined;

  /** Whether any listener is registered. */
  get observed(): boolean {
    return this.listeners.length > 0;
  }

  /** Sends `value` to the current listeners, in the order they were added. */
  emit(value: T): void {
    const listeners = this.listeners;
    for (let i = 0; i < listeners.length; i++) {
      try {
        (listeners[i] as EmitterListener<T>).next(value);
      } catch (error) {
        if (this.guard !== undefined) this.guard.report(this.guard.label, error);
        else reportUnhandled(error);
      }
    }
  }

  /** Adds `listener`; returns its removal. After `complete()` it is completed at once instead. */
  add(listener: EmitterListener<T>): () => void {
    if (this.completed) {
      listener.complete();
      return () => undefined;
    }
    this.listeners = [...this.listeners, listener];
    return () => {
      this.listeners = this.listeners.filter((l) => l !== listener);
    };
  }

  /**
   * An observable that replays `current()` on subscribe, then follows `emit` (the replay of a
   * `BehaviorSubject`); subscribing after `complete()` completes at once, without a value. With
   * a `guard`, subscribers' failures are reported to it (a {@link GuardedObservable}), and a
   * subscriber given as callbacks is attached directly (see `GuardedObservable`).
   */
  observable(current: () => T, guard?: SubscriberGuard): Observable<T> {
    return this.face(this.attacher(current), guard);
  }

  /**
   * An observable that follows `emit` without a replay on subscribe (a plain `Subject`'s
   * face); otherwise as {@link Emitter.observable}.
   */
  changes(guard?: SubscriberGuard): Observable<T> {
    return this.face(this.attacher(undefined), guard);
  }

  /**
   * Attaches a listener (an RxJS `Subscriber` or a direct listener: both have `closed`, `next`
   * and `complete`), replaying `current()` first when given; returns its removal.
   */
  private attacher(current: (() => T) | undefined): (listener: DirectListener<T>) => (() => void) | undefined {
    return (listener) => {
      if (this.completed) {
        listener.complete();
        return undefined;
      }
      if (current !== undefined) {
        listener.next(current());
        if (listener.closed) return undefined;
      }
      return this.add(listener);
    };
  }

  private face(attach: (listener: DirectListener<T>) => (() => void) | undefined, guard: SubscriberGuard | undefined): Observable<T> {
    if (guard === undefined) return new Observable<T>(attach);
    this.guard = guard;
    return new GuardedObservable<T>(guard.label, guard.report, attach, attach);
  }

  /** Completes every listener; later ones complete at once. Idempotent. */
  complete(): void {
    if (this.completed) return;
    this.completed = true;
    const listeners = this.listeners;
    this.listeners = NO_LISTENERS;
    for (const listener of listeners) listener.complete();
  }
}
