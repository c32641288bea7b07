import { codedMessage } from '../internal/coded-message';
import { DEV } from '../internal/dev';
import type { Observable } from 'rxjs';
import { GuardedObservable } from '../internal/guarded-observable';
import { withAccessors } from '../internal/fast-object';
import type { CoreStore } from '../session/session-types';
import { SessionDisposedError } from '../session/errors';
import { graphOf, type ComputedGraph } from './computed-graph';
import type { ComputedNode } from './computed-node';
import { InvalidComputedError } from './computed-errors';
import { isComputedDef } from './computed-declaration';
import type { ComputedDef } from './define-computed';
import { quote } from '../internal/quote';

/**
 * A session's live accessor for one computed slice. Read-only: there is nothing to seed,
 * clear or register; change the sources instead.
 */
export interface ComputedHandle<TValue> {
  readonly name: string;
  /**
   * The current value, computed synchronously if a source changed since the last computation
   * (memoized otherwise). @throws {@link ComputedError} when `project` has never succeeded.
   */
  latest(): TValue;
  /**
   * The value: emits synchronously on subscribe (when there is one), then at most once per
   * committed event or `batch` that changed it, after every source was updated. Never emits a
   * value `equals` to the one the subscriber saw last. Completes when the session is disposed;
   * never errors (failures go to `session.errors$`).
   */
  readonly value$: Observable<TValue>;
  /**
   * Forgets the memo, so the next read calls `project` even though no source changed (for a
   * project that reads something outside its sources). When observed, it recomputes right away
   * and emits if the value changed.
   */
  invalidate(): void;
  /**
   * True when the value may be out of date: never computed, invalidated, or a source's version
   * changed since the last computation. The next read then re-checks and calls `project` unless
   * every changed computed source recomputed to an equal value.
   */
  readonly isStale: boolean;
  /** Increases each time the value changes (starts at 0 before the first computation). */
  readonly version: number;
}

/** @internal Builds the handle of a node (one per node). */
export function handleOf<TValue>(graph: ComputedGraph, node: ComputedNode<TValue>): ComputedHandle<TValue> {
  const { internals } = graph;
  // Guarded: a throwing subscriber is reported on the session's errors$ (SubscriberError).
  const value$ = new GuardedObservable<TValue>(`computed "${node.def.name}" value$`, (source, error) => internals.reportSubscriberFailure(source, error), (subscriber) => {
    if (internals.disposed) {
      subscriber.complete();
      return undefined;
    }
    graph.retain(node);
    node.refresh();
    const equals = node.def.equals;
    let seen = false;
    let last: TValue | undefined;
    const deliver = (value: TValue): void => {
      if (seen && equals(last as TValue, value)) return;
      seen = true;
      last = value;
      subscriber.next(value);
    };
    if (node.hasValue) deliver(node.value as TValue);
    const remove = node.listen({ next: deliver, complete: () => subscriber.complete() });
    return () => {
      remove();
      graph.release(node);
    };
  });
  const handle: Omit<ComputedHandle<TValue>, 'isStale' | 'version'> & { readonly [NODE]: ComputedNode<TValue> } = {
    [NODE]: node,
    name: node.def.name,
    latest() {
      if (internals.disposed) throw new SessionDisposedError(`read computed slice ${quote(node.def.name)}`);
      node.refresh();
      if (!node.hasValue) throw node.failure;
      return node.value as TValue;
    },
    value$,
    invalidate: () => graph.invalidate(node),
  };
  return withAccessors<ComputedHandle<TValue>>(handle, HANDLE_ACCESSORS);
}

/** Where the handle's shared accessors find its node (see `withAccessors`: the handle stays fast). */
const NODE = Symbol('rxslice.computedNode');
const HANDLE_ACCESSORS: PropertyDescriptorMap = {
  isStale: {
    get(this: { readonly [NODE]: ComputedNode<unknown> }) {
      return this[NODE].isStale;
    },
    enumerable: true,
  },
  version: {
    get(this: { readonly [NODE]: ComputedNode<unknown> }) {
      return this[NODE].version;
    },
    enumerable: true,
  },
};

/**
 * Reads a computed slice in a session: returns its live handle (the same one on every call).
 * Nothing is computed until `latest()` is called or `value$` is subscribed.
 *
 * @remarks Glitch-free: after one committed event or one `session.batch`, each observed
 * computed slice is recomputed at most once, in depth order, after all its sources (slices
 * and computed slices) were updated, and emits at most once, also in diamonds
 * (C from A and B, both from S) and deep chains. Memoized on source versions; a recomputed
 * value that `equals` the previous one (`Object.is` by default) keeps the previous reference,
 * emits nothing and does not recompute dependents. A throwing `project` is reported on
 * `session.errors$` as a {@link ComputedError}; the previous value is kept.
 * @throws {@link SliceNotRegisteredError} when a source slice is not part of the session.
 * @throws {@link InvalidComputedError} when `def` is not a computed slice declaration (for a
 * slice, use `session.slice(def)`).
 * @example
 * ```ts
 * const Total = defineComputed('total', [Orders], (orders) => orders.reduce((s, o) => s + o.amount, 0));
 * const total = computed(session, Total);
 * total.value$.subscribe((t) => console.log(t)); // Logs: 0
 * session.dispatch(OrderPlaced({ amount: 5 }));   // Logs: 5
 * total.latest();                                 // 5, without calling project again
 * ```
 */
export function computed<TValue>(session: CoreStore, def: ComputedDef<string, TValue>): ComputedHandle<TValue> {
  if (!isComputedDef(def)) {
    throw new InvalidComputedError(String((def as { name?: unknown } | undefined)?.name), !DEV ? codedMessage('E35', typeof def) : 'it is not a computed slice declaration. Make it with defineComputed, or read slices with session.slice(def).');
  }
  const graph = graphOf(session);
  const node = graph.node<TValue>(def);
  let handle = graph.extensions.get(node) as ComputedHandle<TValue> | undefined;
  if (handle === undefined) {
    handle = handleOf(graph, node);
    graph.extensions.set(node, handle);
  }
  return handle;
}
