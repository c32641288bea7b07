import { asyncScheduler, BehaviorSubject, filter, Subject, type Observable, type SchedulerLike, type Subscription } from 'rxjs';
import { MachineNotRunningError } from './errors.js';
import type { MachineDefinition } from './machine-definition.js';
import type { MachineEffect, MachineEvent } from './machine-event.js';
import type { MachineSlices } from './machine-slices.js';
import type { MachineSnapshot } from './machine-snapshot.js';
import { advanceTime, initialTransition, transition, type TransitionResult } from './transition.js';

/** Options of {@link createMachineActor}. */
export interface MachineActorOptions<TContext, TStateId extends string> {
  /** Clock and timer for delayed sends (default `asyncScheduler`); pass a `TestScheduler` for virtual time. */
  readonly scheduler?: SchedulerLike;
  /** Continue from this snapshot instead of starting fresh (pending delayed sends are re-armed). */
  readonly snapshot?: MachineSnapshot<TContext, TStateId>;
  /** What guards and actions read as `slices` (default: none; a read throws `MachineSlicesUnavailableError`). */
  readonly slices?: MachineSlices;
}

/** A running machine: holds a snapshot, feeds it events, arms timers for delayed sends. */
export interface MachineActor<TContext, TEventType extends string, TStateId extends string> {
  /** Starts (or resumes from the given snapshot); emits the first snapshot synchronously. Returns the actor. */
  start(): MachineActor<TContext, TEventType, TStateId>;
  /** Processes one event as a macrostep, synchronously (queued FIFO when called during another). */
  send(event: TEventType | MachineEvent<TEventType>): void;
  /** The current snapshot (plain JSON data). */
  snapshot(): MachineSnapshot<TContext, TStateId>;
  /** True when `stateId` is active. */
  matches(stateId: TStateId): boolean;
  /** Current snapshot on subscribe, then one emission per macrostep that changed something. Completes on stop. */
  readonly snapshot$: Observable<MachineSnapshot<TContext, TStateId>>;
  /** Effects produced by actions, in order. Completes on stop. */
  readonly effects$: Observable<MachineEffect>;
  /** Execution errors and, under policy `'report'`, {@link InvalidTransitionError}s. Completes on stop. */
  readonly errors$: Observable<unknown>;
  /** Each transition result, for hosts that need logs, raised events or sends. Completes on stop. */
  readonly results$: Observable<TransitionResult<TContext, TStateId>>;
  /** Cancels timers and completes the observables; the last snapshot stays readable. */
  stop(): void;
  /** Same as {@link MachineActor.stop}. */
  dispose(): void;
}

/**
 * Creates a live actor for a machine definition: it wraps the pure {@link transition}
 * core, keeps the current snapshot in a `BehaviorSubject`, and arms one timer on the
 * scheduler for the earliest pending delayed send (re-armed after every step).
 *
 * @remarks `send` is synchronous: when it returns, the macrostep ran and `snapshot$`
 * subscribers were told. A `send` from inside a subscriber is queued and runs right after
 * (FIFO). Under policy `'throw'`, `send` throws {@link InvalidTransitionError} and nothing
 * changes; under `'report'` the error goes to `errors$`. Delayed sends fire on the
 * scheduler at `dueAtMs` (absolute `scheduler.now()` time); when restoring a snapshot whose
 * sends are overdue, they fire with delay 0.
 * @throws {@link MachineNotRunningError} from `send`/`snapshot` before `start()` or after `stop()`.
 * @example
 * ```ts
 * const actor = createMachineActor(Light, { scheduler }).start();
 * actor.snapshot$.subscribe((s) => console.log(s.configuration)); // Logs: ['green']
 * actor.send('timer/elapsed');                                    // Logs: ['yellow']
 * actor.dispose();
 * ```
 */
export function createMachineActor<TContext, TEventType extends string, TStateId extends string>(
  definition: MachineDefinition<TContext, TEventType, TStateId>,
  options: MachineActorOptions<TContext, TStateId> = {},
): MachineActor<TContext, TEventType, TStateId> {
  type Snap = MachineSnapshot<TContext, TStateId>;
  type Result = TransitionResult<TContext, TStateId>;
  const scheduler = options.scheduler ?? asyncScheduler;
  const slicesOption = options.slices === undefined ? {} : { slices: options.slices };
  const state$ = new BehaviorSubject<Snap | undefined>(options.snapshot);
  const effects$ = new Subject<MachineEffect>();
  const errors$ = new Subject<unknown>();
  const results$ = new Subject<Result>();
  let status: 'idle' | 'running' | 'stopped' = 'idle';
  let timer: Subscription | undefined;
  let timerDue: number | undefined;
  const queue: (() => Result)[] = [];
  let processing = false;

  const current = (): Snap => {
    const s = state$.getValue();
    if (status !== 'running' && s === undefined) throw new MachineNotRunningError(definition.name, status === 'stopped' ? 'stopped' : 'idle');
    return s!;
  };

  const armTimer = (snap: Snap) => {
    const next = snap.delayed[0];
    if (next?.dueAtMs === timerDue && timer && !timer.closed) return;
    timer?.unsubscribe();
    timer = undefined;
    timerDue = undefined;
    if (next === undefined || status !== 'running') return;
    timerDue = next.dueAtMs;
    timer = scheduler.schedule(() => {
      timer = undefined;
      timerDue = undefined;
      run(() => advanceTime(definition, current(), scheduler.now(), slicesOption));
    }, Math.max(0, next.dueAtMs - scheduler.now()));
  };

  const publish = (result: Result) => {
    const previous = state$.getValue();
    const changed =
      previous === undefined ||
      result.changed ||
      result.sent.length > 0 ||
      result.cancelled.length > 0 ||
      previous.delayed.length !== result.snapshot.delayed.length;
    if (changed) state$.next(result.snapshot);
    for (const e of result.effects) effects$.next(e);
    for (const e of result.errors) errors$.next(e);
    results$.next(result);
    armTimer(result.snapshot);
  };

  function run(step: () => Result): void {
    queue.push(step);
    if (processing) return;
    processing = true;
    try {
      for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
        if (status !== 'running') break;
        let result: Result;
        try {
          result = next();
        } catch (error) {
          queue.length = 0;
          throw error;
        }
        publish(result);
      }
    } finally {
      processing = false;
    }
  }

  const actor: MachineActor<TContext, TEventType, TStateId> = {
    start() {
      if (status !== 'idle') return actor;
      status = 'running';
      if (options.snapshot) {
        armTimer(options.snapshot); // snapshot$ already holds it (seeded at creation)
      } else {
        run(() => initialTransition(definition, { nowMs: scheduler.now(), ...slicesOption }));
      }
      return actor;
    },
    send(event) {
      if (status !== 'running') throw new MachineNotRunningError(definition.name, status === 'stopped' ? 'stopped' : 'idle');
      run(() => transition(definition, current(), event, { nowMs: scheduler.now(), ...slicesOption }));
    },
    snapshot: () => {
      const s = state$.getValue();
      if (s === undefined) throw new MachineNotRunningError(definition.name, 'idle');
      return s;
    },
    matches: (stateId) => actor.snapshot().configuration.includes(stateId),
    snapshot$: state$.pipe(filter((s): s is Snap => s !== undefined)),
    effects$: effects$.asObservable(),
    errors$: errors$.asObservable(),
    results$: results$.asObservable(),
    stop() {
      if (status === 'stopped') return;
      status = 'stopped';
      timer?.unsubscribe();
      timer = undefined;
      queue.length = 0;
      state$.complete();
      effects$.complete();
      errors$.complete();
      results$.complete();
    },
    dispose: () => actor.stop(),
  };
  return actor;
}
