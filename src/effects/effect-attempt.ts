import { from, type Observer, type SchedulerLike, type Subscription, type Unsubscribable } from 'rxjs';
import type { Effect } from './define-effect';
import type { EffectContext, EffectHandler } from './effect-handler';
import { EffectCancelledError } from './errors';

/**
 * @internal One attempt of a leaf effect: calls the handler with its {@link EffectContext}
 * and forwards what its output does to `downstream`; `unsubscribe()` before the output
 * settled cancels it (unsubscribes the output and aborts `ctx.signal` with an
 * `EffectCancelledError`).
 *
 * @remarks `ctx.signal` is created on first read (see {@link AttemptContext}): creating an
 * `AbortSignal` costs more than the rest of a synchronous run (several µs on Node 20), and most
 * observable handlers never read it. A signal first read after the attempt was cancelled is
 * already aborted, with the same kind of reason, so a handler cannot tell the difference.
 */
export class EffectAttempt implements Observer<unknown>, Unsubscribable {
  readonly ctx: AttemptContext;
  private controller: AbortController | undefined = undefined;
  private cancelled = false;
  /** The handler threw, or its output errored or completed: nothing left to abort. */
  private settled = false;
  private subscription: Subscription | undefined = undefined;

  constructor(
    private readonly effect: Effect,
    private readonly attempt: number,
    private readonly downstream: Observer<unknown>,
    deps: unknown,
    effectId: number,
    scheduler: SchedulerLike,
  ) {
    this.ctx = new AttemptContext(this, attempt, deps, effectId, scheduler);
  }

  /** Calls the handler and subscribes to its output. A throw (handler or invalid output) errors `downstream`. */
  start(handler: EffectHandler<any, any, any>): void {
    let output;
    try {
      output = handler(this.effect, this.ctx);
      this.subscription = from(output).subscribe(this);
    } catch (error) {
      this.settled = true;
      this.downstream.error(error);
    }
  }

  next(value: unknown): void {
    this.downstream.next(value);
  }

  error(error: unknown): void {
    this.settled = true;
    this.downstream.error(error);
  }

  complete(): void {
    this.settled = true;
    this.downstream.complete();
  }

  /** Tears the attempt down; aborts the signal when the output had not settled yet. */
  unsubscribe(): void {
    this.subscription?.unsubscribe();
    if (this.settled || this.cancelled) return;
    this.cancelled = true;
    this.controller?.abort(new EffectCancelledError(this.effect.type, this.attempt));
  }

  /** The attempt's signal, created on first call (aborted at once when the attempt was already cancelled). */
  signal(): AbortSignal {
    if (this.controller === undefined) {
      this.controller = new AbortController();
      if (this.cancelled) this.controller.abort(new EffectCancelledError(this.effect.type, this.attempt));
    }
    return this.controller.signal;
  }
}

/**
 * @internal The {@link EffectContext} of one attempt. `signal` is a getter (on the prototype)
 * that creates the signal on first read, so reading it (`ctx.signal`, `const { signal } = ctx`)
 * behaves as a plain property would; only copies of the context's own properties
 * (`{ ...ctx }`, `Object.keys(ctx)`) do not include it. An own accessor per context would keep
 * those too, but V8 makes such objects several hundred ns slower to create than the whole rest
 * of a run.
 */
class AttemptContext implements EffectContext<unknown> {
  readonly #owner: EffectAttempt;

  constructor(
    owner: EffectAttempt,
    readonly attempt: number,
    readonly deps: unknown,
    readonly effectId: number,
    readonly scheduler: SchedulerLike,
  ) {
    this.#owner = owner;
  }

  get signal(): AbortSignal {
    return this.#owner.signal();
  }
}
