import type { OperatorFunction } from 'rxjs';
import type { Envelope } from '../events/envelope';
import { EventPipeline, type EventMiddleware, type OperatorLayer } from './event-pipeline';
import { OperatorPipeline } from './operator-pipeline';
import type { StackCore } from './middleware-feed';
import type { PipelineStack } from './feature-layers';

type Operator = OperatorFunction<Envelope, Envelope>;

/**
 * @internal The session's event and operator middleware: those given to `createSession`, then
 * those added with `session.use`, in call order. Builds the pipelines the core feeds
 * (`core.pipeline`: the event middleware's, else the operator middleware's, else none) and
 * rebuilds the layer whose middleware changed.
 *
 * Each layer is entered with the middleware in force at that moment:
 * - a change made while an envelope is processed (`core.busy`: from a middleware, a reducer, a
 *   subscriber) is applied before the next envelope enters (`core.pipelineStale`, read by the
 *   core's drain), so no envelope meets two sets of middleware in one layer;
 * - a replaced operator chain is retired, not dropped: what it holds reaches the reduce step once
 *   (see {@link OperatorPipeline.retire}); a replaced event pipeline hands on what its middleware
 *   pass to `next` later to the operator middleware in force then.
 * Adding or removing event middleware leaves the operator chain (and its operators' state) alone.
 */
export class MiddlewareStack implements OperatorLayer, PipelineStack {
  /** The operator middleware in force (read by event pipelines when they hand an envelope on). */
  operators: OperatorPipeline | undefined;
  private events: EventPipeline | undefined;
  /** Added at run time, in call order (boxed: removing one box leaves an equal function added twice). */
  private readonly addedEvents: { readonly middleware: EventMiddleware }[] = [];
  private readonly addedOperators: { readonly middleware: Operator }[] = [];
  private eventsChanged = false;
  private operatorsChanged = false;

  constructor(
    private readonly core: StackCore,
    private readonly ownEvents: readonly EventMiddleware[],
    private readonly ownOperators: readonly Operator[],
  ) {
    this.operators = ownOperators.length > 0 ? new OperatorPipeline(core, ownOperators) : undefined;
    this.events = ownEvents.length > 0 ? new EventPipeline(core, ownEvents, this) : undefined;
    core.pipeline = this.events ?? this.operators;
  }

  /**
   * Adds event and operator middleware after those in force; returns the idempotent function that
   * removes exactly these. Either applies now or, while an envelope is processed, before the next.
   */
  add(events: readonly EventMiddleware[], operators: readonly Operator[]): () => void {
    const eventBoxes = events.map((middleware) => ({ middleware }));
    const operatorBoxes = operators.map((middleware) => ({ middleware }));
    this.addedEvents.push(...eventBoxes);
    this.addedOperators.push(...operatorBoxes);
    this.changed(eventBoxes.length > 0, operatorBoxes.length > 0);
    let removed = false;
    return () => {
      if (removed) return;
      removed = true;
      removeAll(this.addedEvents, eventBoxes);
      removeAll(this.addedOperators, operatorBoxes);
      this.changed(eventBoxes.length > 0, operatorBoxes.length > 0);
    };
  }

  /** @internal Called by the core before the next envelope enters: rebuilds the layers that changed. */
  apply(): void {
    const core = this.core;
    core.pipelineStale = false;
    if (this.operatorsChanged) {
      this.operatorsChanged = false;
      const retired = this.operators;
      const operators = [...this.ownOperators, ...this.addedOperators.map((b) => b.middleware)];
      // The new chain first: an operator may emit as soon as it is subscribed.
      this.operators = operators.length > 0 ? new OperatorPipeline(core, operators) : undefined;
      retired?.retire();
    }
    if (this.eventsChanged) {
      this.eventsChanged = false;
      const events = [...this.ownEvents, ...this.addedEvents.map((b) => b.middleware)];
      this.events = events.length > 0 ? new EventPipeline(core, events, this) : undefined;
    }
    core.pipeline = this.events ?? this.operators;
  }

  private changed(events: boolean, operators: boolean): void {
    if (this.core.disposed) return;
    this.eventsChanged ||= events;
    this.operatorsChanged ||= operators;
    if (!this.eventsChanged && !this.operatorsChanged) return;
    if (this.core.busy) this.core.pipelineStale = true;
    else this.apply();
  }
}

function removeAll<T>(list: T[], items: readonly T[]): void {
  for (const item of items) {
    const i = list.indexOf(item);
    if (i >= 0) list.splice(i, 1);
  }
}
