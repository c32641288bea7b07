import { Subscription } from 'rxjs';
import { jsonEqual } from '../internal/json-equal';
import { SESSION_INTERNALS, type TransactionListener } from '../session/internals';
import type { CoreStore } from '../session/session-types';
import type { SliceDef } from '../slices/reducer';

/** @internal One checkpoint an attached session asks its checkpointer to write. */
export interface SessionStep<TValue, TUpdate> {
  /** The state after the step: what the session committed. */
  readonly values: TValue;
  /** The step's updates, when `values` is `base` with them applied (the checkpoint can be a delta of a parent holding `base`). */
  readonly updates?: readonly TUpdate[];
  readonly base?: TValue;
  /** `'loop'` for an update step, `'update'` for any other change (restore, rollback, reset, seed, clear, another reducer). */
  readonly source: 'loop' | 'update';
  readonly metadata: Readonly<Record<string, unknown>>;
}

/** @internal What {@link recordSession} needs of a checkpointer and its state. */
export interface SessionRecorderTarget<TValue, TUpdate> {
  readonly slice: SliceDef<string, any>;
  readonly defaults: TValue;
  /** Whether `event` is one of the state's update events. */
  isUpdate(event: unknown): boolean;
  /** The updates of an update event, checked with the state's update schema; `undefined` when refused. */
  updatesOf(event: unknown): readonly TUpdate[] | undefined;
  /** The value after one step of `updates` (throws on a conflict). */
  apply(value: TValue, updates: readonly TUpdate[]): TValue;
  /** The values of the thread's latest checkpoint (`undefined`: the thread has none). */
  latest(): TValue | undefined;
  /** Appends one checkpoint to the thread. */
  record(step: SessionStep<TValue, TUpdate>): void;
}

interface Change<TUpdate> {
  readonly seq: number;
  readonly type: string;
  /** The update event's updates; `undefined` for any other change of the slice. */
  readonly updates: readonly TUpdate[] | undefined;
}

/**
 * @internal Keeps a thread's latest checkpoint equal to the committed value of a state slice of
 * `session` (see `Checkpointer.attach`). Keyed on the slice's changes, not on event types: every
 * commit that changed the slice is a checkpoint: an update step as a delta (when applying its
 * updates to the previous checkpoint gives exactly what the session committed), anything else
 * (restore, rollback, reset, seed, clear, another reducer, middleware that changed the outcome) as
 * the committed value. Inside `session.transaction` the steps are held and written when no
 * transaction is open any more; a rollback drops the steps held since its transaction began.
 */
export function recordSession<TValue, TUpdate>(session: CoreStore, target: SessionRecorderTarget<TValue, TUpdate>): Subscription {
  const handle = session.slice(target.slice); // throws SliceNotRegisteredError
  const internals = session[SESSION_INTERNALS];
  const committedValue = (): TValue => {
    const value = (handle.latest() ?? target.defaults) as TValue;
    // A session that does not freeze its items (production) keeps them as they are: the checkpoint gets its own copy.
    return value === null || typeof value !== 'object' || Object.isFrozen(value) ? value : (JSON.parse(JSON.stringify(value)) as TValue);
  };
  /** The value of the thread's latest checkpoint written (`undefined`: none yet). */
  let written = target.latest();
  /** Steps of open transactions, written when no transaction is open any more. */
  const held: SessionStep<TValue, TUpdate>[] = [];
  /** Per open transaction (by id): how many steps were held when it began. */
  const marks = new Map<number, number>();
  /** Transactions open when attaching (their ids unknown): they hold steps too. */
  let openBefore = internals.transactionDepth;
  /** Changes of one publish (a batch publishes several commits at once), and the seq of its last change of the slice. */
  let pending: Change<TUpdate>[] = [];
  let lastSeq = -1;

  /** The thread's value once every held step is written. */
  const head = (): TValue | undefined => (held.length > 0 ? (held[held.length - 1] as SessionStep<TValue, TUpdate>).values : written);
  const write = (step: SessionStep<TValue, TUpdate>): void => {
    target.record(step);
    written = step.values;
  };
  const emit = (step: SessionStep<TValue, TUpdate>): void => {
    if (marks.size > 0 || openBefore > 0) held.push(step);
    else write(step);
  };
  /** A checkpoint of the committed value, unless the thread already holds it. */
  const sync = (metadata: Readonly<Record<string, unknown>>, source: 'loop' | 'update'): void => {
    const value = committedValue();
    if (!jsonEqual(head() ?? target.defaults, value)) emit({ values: value, source, metadata });
  };
  /** The changes of one publish are all told: checkpoint them. */
  const settle = (): void => {
    const changes = pending;
    pending = [];
    const last = changes.at(-1) as Change<TUpdate>;
    if (changes.every((c) => c.updates !== undefined)) {
      // Update steps: one delta each, when replaying them gives exactly what the session committed
      // (a reducer middleware or another reducer of the event may have changed the outcome).
      const steps: SessionStep<TValue, TUpdate>[] = [];
      let value = head() ?? target.defaults;
      try {
        for (const c of changes) {
          const next = target.apply(value, c.updates as readonly TUpdate[]);
          steps.push({ values: next, updates: c.updates as readonly TUpdate[], base: value, source: 'loop', metadata: { seq: c.seq } });
          value = next;
        }
      } catch {
        steps.length = 0;
      }
      if (steps.length > 0 && jsonEqual(value, handle.latest() ?? target.defaults)) {
        for (const step of steps) emit(step);
        return;
      }
      sync({ seq: last.seq }, 'loop');
      return;
    }
    let other = last;
    for (const c of changes) if (c.updates === undefined) other = c;
    sync({ seq: last.seq, event: other.type }, 'update');
  };

  const subscription = new Subscription();
  // Attaching: the thread's latest checkpoint must already be the session's committed value.
  sync({ seq: session.lastSeq, attached: true }, 'update');
  subscription.add(
    handle.changes$.subscribe((u) => {
      lastSeq = u.seq;
    }),
  );
  subscription.add(
    session.committed$.subscribe((c) => {
      if (!c.changed.includes(handle.name)) return;
      pending.push({ seq: c.seq, type: c.event.type, updates: target.isUpdate(c.event) ? target.updatesOf(c.event) : undefined });
      if (c.seq >= lastSeq) settle();
    }),
  );
  const listener: TransactionListener = {
    onTransactionBegin(id) {
      marks.set(id, held.length);
    },
    onTransactionEnd(id, committed) {
      const mark = marks.get(id);
      if (mark === undefined) openBefore = Math.max(0, openBefore - 1);
      marks.delete(id);
      // A rollback drops what was held since its transaction began (an overlapping async
      // transaction's rollback may have dropped more already).
      if (!committed) held.length = Math.min(held.length, mark ?? 0);
      if (marks.size === 0 && openBefore === 0) for (const step of held.splice(0)) write(step);
      // The rollback restored what the transaction began with; should the slice hold anything
      // else (overlapping transactions, a restore that could not run), the thread follows the session.
      if (!committed && pending.length === 0) sync({ seq: session.lastSeq, rolledBack: true }, 'update');
    },
  };
  subscription.add(internals.onTransaction(listener));
  return subscription;
}
