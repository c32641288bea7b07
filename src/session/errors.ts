import type { Envelope } from '../events/envelope';
import { formatIssues, RxSliceError, type ValidationIssue } from '../internal/errors';
import { codedMessage } from '../internal/coded-message';
import { DEV } from '../internal/dev';
import { messageOf, quote } from '../internal/quote';

/**
 * Thrown by `dispatch` (and reported on `errors$`) when an event's payload fails its schema or a
 * schema of the `validationMiddleware` (`refusedBy`), or when the event is not an event
 * object (not an object, no string `type`, a getter or Proxy trap that throws while it is read, a
 * `meta` that cannot be read). Nothing changes and no `seq` is taken.
 */
export class InvalidEventError extends RxSliceError {
  override readonly name = 'InvalidEventError';
  constructor(
    /** The `type` of the rejected event, as far as it could be read. */
    readonly eventType: string,
    /** What failed, as zod reports it (path and message per problem). */
    readonly issues: readonly ValidationIssue[],
    cause?: unknown,
    /**
     * What refused it: `'schema'` (the event's own schema, at dispatch) or `'validation
     * middleware'` (a schema given to `validationMiddleware`, before the reducers).
     */
    readonly refusedBy: 'schema' | 'validation middleware' = 'schema',
  ) {
    super(
      'INVALID_EVENT',
      !DEV
        ? codedMessage('E1', `${quote(eventType)}, ${issues[0]?.code === 'invalid_event' ? 'not an event' : refusedBy}: ${formatIssues(issues)}`)
        : issues[0]?.code === 'invalid_event'
        ? `Event ${quote(eventType)} is not a valid event (${formatIssues(issues)}). Nothing was changed.`
        : refusedBy === 'validation middleware'
          ? `Event ${quote(eventType)} was refused by the validation middleware (${formatIssues(issues)}). Nothing was changed and no seq was taken.`
          : `Event ${quote(eventType)} has an invalid payload (${formatIssues(issues)}). Nothing was changed; fix the payload to match the event's schema.`,
      cause === undefined ? undefined : { cause },
    );
  }
}

/**
 * Thrown by `dispatch` (and reported on `errors$`) when the session does not know the event's
 * type: no slice reducer, machine, saga, effect, channel or `createSession({ events })` declares
 * it (docs/ARCHITECTURE.md, "Known events"). Nothing changes and no `seq` is taken.
 * `suggestion` is the declared type closest to `eventType` (a likely typo), when one is close;
 * the production build (the `"production"` export condition, docs/SIZE.md) does not look for one:
 * there `suggestion` is `undefined` and the message is the code and the type,
 * e.g. `rxslice E2: "chat/sent"; see …/docs/errors.md#e2`. A session made with `unknownEvents: 'accept'` takes such events instead.
 */
export class UnknownEventError extends RxSliceError {
  override readonly name = 'UnknownEventError';
  constructor(
    /** The `type` of the rejected event. */
    readonly eventType: string,
    /** The declared event type closest to `eventType` (a likely typo), or undefined (always, in the production build). */
    readonly suggestion: string | undefined,
  ) {
    super(
      'UNKNOWN_EVENT',
      !DEV
        ? codedMessage('E2', quote(eventType))
        : `Event ${quote(eventType)} is not declared in this session${suggestion === undefined ? '' : ` (did you mean ${quote(suggestion)}?)`}. ` +
        'Nothing was changed. Declare its type with a slice reducer (on(Creator, ...)), createSession({ events: [Creator] }), ' +
        "a machine, a saga's startOn, an effect or a channel; or accept undeclared types with createSession({ unknownEvents: 'accept' }).",
    );
  }
}

/**
 * Thrown by `dispatch` (and reported on `errors$`) when a reducer or reducer middleware
 * throws, or when the operator middleware fails on the event (`sliceName` `'(session)'`,
 * `reducerName` `'operator middleware'`: it threw, errored, or let through something that is
 * not an application event) or the event middleware does (`reducerName` `'event middleware'`:
 * it threw, or called `next` twice with one envelope). `cause` is the original error; no slice changed for this event.
 */
export class ReducerError extends RxSliceError {
  override readonly name = 'ReducerError';
  constructor(
    /** The envelope being reduced when the reducer failed. */ readonly envelope: Envelope,
    /** The slice whose reducer failed. */ readonly sliceName: string,
    /** The failing reducer's name (`'event middleware'` when the event middleware failed). */ readonly reducerName: string,
    cause: unknown,
  ) {
    super(
      'REDUCER_FAILED',
      !DEV
        ? codedMessage('E3', `${quote(sliceName)} ${quote(reducerName)} on ${quote(envelope.event.type)} seq ${envelope.seq}: ${describeCause(cause)}`)
        : reducerName === 'operator middleware' && sliceName === '(session)'
        ? `The operator middleware failed on ${quote(envelope.event.type)} (seq ${envelope.seq}): ${
            describeCause(cause)
          }. The event was not reduced; the middleware is resubscribed before the next event.`
        : reducerName === 'event middleware' && sliceName === '(session)'
        ? `The event middleware failed on ${quote(envelope.event.type)} (seq ${envelope.seq}): ${describeCause(cause)}. The event was not reduced.`
        : `Reducer ${quote(reducerName)} of slice ${quote(sliceName)} failed on ${quote(envelope.event.type)} (seq ${envelope.seq}): ${
            describeCause(cause)
          }. No slice was changed by this event.`,
      { cause },
    );
  }
}

/** Thrown when a reducer (or reducer middleware) calls `dispatch`. */
export class DispatchInReducerError extends RxSliceError {
  override readonly name = 'DispatchInReducerError';
  constructor(
    /** The `type` of the event dispatched from inside a reducer. */
    readonly eventType: string,
  ) {
    super(
      'DISPATCH_IN_REDUCER',
      !DEV ? codedMessage('E4', quote(eventType)) : `${quote(eventType)} was dispatched from inside a reducer. Reducers must be pure: return withEffects(op, [...]) or dispatch from an effect or subscriber instead.`,
    );
  }
}

/** Thrown when a disposed session is used. */
export class SessionDisposedError extends RxSliceError {
  override readonly name = 'SessionDisposedError';
  constructor(operation: string) {
    super('SESSION_DISPOSED', !DEV ? codedMessage('E5', operation) : `Cannot ${operation}: the session was disposed. Create a new session with createSession().`);
  }
}

/** Thrown when a slice that is not part of the session is used. */
export class SliceNotRegisteredError extends RxSliceError {
  override readonly name = 'SliceNotRegisteredError';
  constructor(
    /** The slice name that was asked for. */
    readonly sliceName: string,
  ) {
    super('SLICE_NOT_REGISTERED', !DEV ? codedMessage('E6', quote(sliceName)) : `Slice ${quote(sliceName)} is not registered. Pass it to createSession({ slices }).`);
  }
}

/** Thrown by `createSession` when two slices share a name. */
export class DuplicateSliceError extends RxSliceError {
  override readonly name = 'DuplicateSliceError';
  constructor(
    /** The slice name registered twice. */
    readonly sliceName: string,
  ) {
    super('DUPLICATE_SLICE', !DEV ? codedMessage('E7', quote(sliceName)) : `Two slices are named ${quote(sliceName)}. Slice names must be unique within a session.`);
  }
}

/** Raised when an item does not match its slice's schema (seed, restore, reducer output). */
export class InvalidSliceItemError extends RxSliceError {
  override readonly name = 'InvalidSliceItemError';
  constructor(
    /** The slice whose item is invalid. */
    readonly sliceName: string,
    /** The index of the invalid item in the items being checked. */
    readonly index: number,
    /** What failed, as zod reports it. */
    readonly issues: readonly ValidationIssue[],
  ) {
    super(
      'INVALID_SLICE_ITEM',
      !DEV
        ? codedMessage('E8', `${quote(sliceName)} item ${index}: ${formatIssues(issues)}`)
        : `Item ${index} of slice ${quote(sliceName)} does not match the slice's schema (${formatIssues(issues)}).`,
    );
  }
}

/** The message of `cause` for an error message; never throws (a hostile `toString` or `message` getter). */
function describeCause(cause: unknown): string {
  return messageOf(cause);
}

/**
 * Thrown by `dispatch` (and reported once on `errors$`) when the session's durable storage
 * failed to write or fsync the record of event `seq` (`cause`: the storage's error). The
 * failure is fatal and never retried: that event changed nothing in memory, and every later
 * dispatch throws this same error. Dispose the session and open a new one on the directory
 * (it recovers what was written).
 */
export class StorageFailedError extends RxSliceError {
  override readonly name = 'StorageFailedError';
  constructor(
    /** The seq of the event whose record failed to be written. */
    readonly seq: number,
    cause: unknown,
  ) {
    super(
      'STORAGE_FAILED',
      !DEV
        ? codedMessage('E9', `seq ${seq}: ${describeCause(cause)}`)
        : `The session's storage failed${seq > 0 ? ` writing event seq ${seq}` : ''}: ${describeCause(cause)}. The session accepts no more events; dispose it and open a new session on the same storage to recover what was written.`,
      { cause },
    );
  }
}

/**
 * Thrown when a slice is added to a session (a statechart installed, the first saga run, a
 * slice registered at run time) whose storage brings a journal that holds events beyond the
 * `seq` the session has already numbered events up to since it opened: numbering on would give
 * a `seq` that the journal (and any flight recording of the earlier run) already holds to
 * another event. Nothing was added. It cannot happen with `jsonl()`, whose journal the session
 * opens when it is created; it can with a storage factory that opens its journal only with its
 * first slice. Before any event was numbered, the session takes the journal's `seq` instead.
 * @example
 * ```ts
 * const session = createSession({ slices: [], storage: (def) => durable(def), unknownEvents: 'accept' });
 * session.dispatch({ type: 'tool/called', payload: {} }); // seq 1 (the journal is not open yet)
 * session.install(Phases); // throws StorageAheadError: the journal holds seq 3
 * ```
 */
export class StorageAheadError extends RxSliceError {
  override readonly name = 'StorageAheadError';
  constructor(
    /** The slice whose storage brought the journal. */
    readonly sliceName: string,
    /** The last `seq` the journal holds. */
    readonly storedSeq: number,
    /** The last `seq` the session has numbered since it opened. */
    readonly sessionSeq: number,
  ) {
    super(
      'STORAGE_AHEAD',
      !DEV
        ? codedMessage('E10', `${quote(sliceName)} at seq ${storedSeq}, session at seq ${sessionSeq}`)
        : `The storage of slice ${quote(sliceName)} holds events up to seq ${storedSeq}, but this session has numbered events up to seq ${sessionSeq} since it opened: numbering on would give seqs the storage already holds to other events. Nothing was added. Give createSession a storage that opens its journal with the session (jsonl() does), or add the slice (install the statechart, run the saga) before the first dispatch.`,
    );
  }
}

/**
 * Thrown by `restore`, `transaction` and run-time changes to reducing (`use`, `slice(def).use`,
 * `slice(def).register`, `slice(def).configure`) on the local view of a shared session
 * (`rxslice/storage/postgres`) once it is open: every process reduces the shared log, so state
 * changes only by events in that log, reduced alike everywhere; a local restore or rollback, or a
 * reducer, middleware or window changed in one process only, would make it diverge from the others.
 */
export class UnsupportedOnSharedSessionError extends RxSliceError {
  override readonly name = 'UnsupportedOnSharedSessionError';
  constructor(
    /** The refused operation (`restore`, `transaction`, `use`, `slice(def).use`, `slice(def).register`, `slice(def).configure`). */
    readonly operation: string,
  ) {
    super(
      'UNSUPPORTED_ON_SHARED_SESSION',
      !DEV
        ? codedMessage('E11', operation)
        : operation === 'use' || operation.startsWith('slice(def).')
        ? `${operation} is not available on a shared session once it is open: a reducer, middleware or window changed in one process would reduce the shared log differently there than in the others. Give them to createSharedSession (slices, middleware: { reducers }) or set them in its install hook, so that every process runs them.`
        : `${operation} is not available on a shared session: its state changes only by events in the shared log, so that every process reduces the same events to the same state. Dispatch events that undo the work instead.`,
    );
  }
}

/**
 * Rejects `session.findSnapshots` and `session.snapshotLineage` on a session that keeps no
 * catalogue of its snapshots: made with `snapshotCatalogue: false` and no `snapshotStore`.
 */
export class NoSnapshotStoreError extends RxSliceError {
  override readonly name = 'NoSnapshotStoreError';
  constructor(
    /** The operation that needs a catalogue (`findSnapshots` or `snapshotLineage`). */
    readonly operation: string,
  ) {
    super(
      'NO_SNAPSHOT_STORE',
      !DEV
        ? codedMessage('E56', operation)
        : `${operation} needs a catalogue of snapshots, and this session was made with snapshotCatalogue: false. Leave that option out ` +
        `(the session then keeps its last 100 snapshots), or pass createSession({ snapshotStore: createSnapshotStore() }) (from rxslice/snapshot-store).`,
    );
  }
}

/**
 * Thrown by `createSession` for a malformed `snapshotCatalogue` option, or one given together
 * with a `snapshotStore` (the store is then the catalogue: give its retention to `store.forget`).
 */
export class InvalidSnapshotCatalogueOptionError extends RxSliceError {
  override readonly name = 'InvalidSnapshotCatalogueOptionError';
  constructor(problem: string) {
    super('INVALID_SNAPSHOT_CATALOGUE', `createSession option "snapshotCatalogue": ${problem}.`);
  }
}

/**
 * Reported on `errors$` when a snapshot store given to `createSession({ snapshotStore })` failed
 * to save a snapshot the session took (`cause` is the store's error). The snapshot itself is fine.
 */
export class SnapshotSaveError extends RxSliceError {
  override readonly name = 'SnapshotSaveError';
  constructor(
    /** The id of the snapshot that was not saved. */
    readonly snapshotId: string,
    /** Its tag, if any. */
    readonly tag: string | undefined,
    cause: unknown,
  ) {
    super(
      'SNAPSHOT_SAVE_FAILED',
      !DEV
        ? codedMessage('E57', `${quote(snapshotId)}${tag === undefined ? '' : ` (tag ${quote(tag)})`}: ${messageOf(cause)}`)
        : `The snapshot store did not save snapshot ${quote(snapshotId)}${tag === undefined ? '' : ` (tag ${quote(tag)})`}: ${messageOf(cause)}. ` +
        'The snapshot is still usable; save it again with store.save(snapshot) once the store works.',
      { cause },
    );
  }
}

/** Thrown by `createSession` when its `snapshotStore` option is not a snapshot store (an object with `save`, `find` and `lineage`). */
export class InvalidSnapshotStoreOptionError extends RxSliceError {
  override readonly name = 'InvalidSnapshotStoreOptionError';
  constructor() {
    super('INVALID_SNAPSHOT_STORE', !DEV ? codedMessage('E58', 'snapshotStore') : 'createSession option "snapshotStore" must be a snapshot store: pass createSnapshotStore() from rxslice/snapshot-store, or leave it out.');
  }
}

/** How to call `session.use`, for the messages of {@link InvalidMiddlewareError}. */
const HOW_TO_USE = !DEV
  ? ''
  : 'pass reducer middleware functions (ctx, next) => next(), or { events, operators, reducers } as createSession({ middleware }) takes them, e.g. session.use(logging, validation, metrics) or session.use({ operators: [throttleTime(100)] }).';

/**
 * Thrown by `session.use(...)` and `session.slice(def).use(...)` when an argument is neither a
 * reducer middleware function `(ctx, next) => SliceOp` nor (for `session.use`) a
 * `MiddlewareSet` `{ events?, operators?, reducers? }` of arrays of functions, or when the
 * call adds nothing. Nothing of the call is added.
 */
export class InvalidMiddlewareError extends RxSliceError {
  override readonly name = 'InvalidMiddlewareError';
  constructor(
    /** The index of the bad argument (-1 when the call adds nothing). */
    readonly index: number,
    /** What was passed instead (its type, for the message). */
    readonly received: string,
    /** `'session'` for `session.use`, `'slice'` for `session.slice(def).use` (reducer middleware only). */
    readonly scope: 'session' | 'slice' = 'session',
    /** What is wrong inside a `{ events, operators, reducers }` argument, when that is the problem. */
    readonly problem?: string,
  ) {
    super(
      'INVALID_MIDDLEWARE',
      !DEV
        ? codedMessage('E12', `${scope} argument ${index}: ${problem ?? received}`)
        : scope === 'slice'
          ? index < 0
            ? 'slice(def).use() needs at least one reducer middleware: pass functions (ctx, next) => next(), e.g. session.slice(Plan).use(logging).'
            : `slice(def).use() argument ${index} is ${received}, not a reducer middleware: pass functions (ctx, next) => next(). Event and operator middleware are session-wide: pass them to session.use({ events, operators }).`
          : `use() ${index < 0 ? 'needs at least one middleware' : problem !== undefined ? `argument ${index} ${problem}` : `argument ${index} is ${received}, not a middleware`}: ${HOW_TO_USE}`,
    );
  }
}


/**
 * Thrown by `session.subscribe(listener)` when `listener` is not a function. Nothing is subscribed.
 */
export class InvalidListenerError extends RxSliceError {
  override readonly name = 'InvalidListenerError';
  constructor(readonly received: string) {
    super('INVALID_LISTENER', !DEV ? codedMessage('E13', received) : `subscribe() needs a listener function () => void, got ${received}: pass a function, e.g. session.subscribe(() => render(session.getSnapshot())).`);
  }
}

/**
 * Thrown when a session needs the saga runtime and this program has not loaded it: it defines no
 * saga (`defineSaga` links the runtime the first time it is called; docs/SIZE.md). By
 * `createSession({ sagas: [] })` or `createSession({ sagaHistory })` (nothing was created), and by
 * `session.resumeSagas()` when the session's storage holds unfinished sagas (`unfinished`), which
 * only their definitions can resume (nothing was resumed). `session.sagaHistory()` needs no
 * runtime: it reads the stored completion records.
 * @example
 * ```ts
 * const session = createSession({ slices: [], storage: jsonl({ dir }) }); // dir holds an unfinished "deploy"
 * session.resumeSagas();
 * // throws SagaRuntimeMissingError: session.resumeSagas() needs the saga runtime: this program defines no saga and
 * // the storage holds unfinished sagas ("deploy", id "d2", of 1); none was resumed. Pass sagas made by defineSaga
 * // to createSession({ sagas }) or call installSagas(session, { sagas }).
 * ```
 */
export class SagaRuntimeMissingError extends RxSliceError {
  override readonly name = 'SagaRuntimeMissingError';
  constructor(
    /** What needed the runtime: `'createSession({ sagas: [] })'`, `'createSession({ sagaHistory })'` or `'session.resumeSagas()'`. */
    readonly needed: string,
    /** The unfinished sagas the storage holds, by name and id (`session.resumeSagas()` only). */
    readonly unfinished: readonly { readonly saga: string; readonly sagaId: string }[] = [],
  ) {
    const [first] = unfinished;
    super(
      'SAGA_RUNTIME_MISSING',
      !DEV
        ? codedMessage('E14', `${needed}${first === undefined ? '' : `; unfinished: ${quote(first.saga)} ${quote(first.sagaId)} of ${unfinished.length}`}`)
        : `${needed} needs the saga runtime: this program defines no saga${
        first === undefined ? '' : ` and the storage holds unfinished sagas (${quote(first.saga)}, id ${quote(first.sagaId)}, of ${unfinished.length}); none was resumed`
      }. Pass sagas made by defineSaga to createSession({ sagas }) or call installSagas(session, { sagas }).`,
    );
  }
}
