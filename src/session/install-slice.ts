import { codedMessage } from '../internal/coded-message';
import { DEV } from '../internal/dev';
import type { SliceDef } from '../slices/reducer';
import { initialItems, InvalidSliceDefinitionError } from '../slices/define-slice';
import { SessionDisposedError } from './errors';
import { SESSION_INTERNALS, type SessionInternals } from './internals';
import type { Session } from './session-types';
import type { SliceHandle } from './slice-handle';
import { LIBRARY_META, SliceInstalled } from './system-events';
import { quote } from '../internal/quote';

/** Options of `session.install(slice, options)`. */
export interface InstallSliceOptions<TItem> {
  /**
   * The slice's items when its storage holds none yet, instead of the definition's `initial`: an
   * array or a function returning one (the seed's `initial=lambda: AgentPlan(steps=())`). Each
   * item is validated with the slice's schema before anything is installed.
   */
  readonly initial?: readonly TItem[] | (() => readonly TItem[]);
}

/**
 * Adds slice `def` (its reducers, window and middleware) to a running session, as
 * `createSession({ slices })` would have: its storage is made by the session's factory for its
 * policy (a durable store's recovered items win over `initial`; a journal ahead of the session's
 * seq is refused with `StorageAheadError`), its reducers route from the next event, and an
 * audited `rxslice.slice.installed` event records it on the stream. Synchronous: when it returns,
 * the slice is readable and its events dispatchable.
 *
 * @remarks Typing: `dispatch` is typed by what the session was created with, so an installed
 * slice's events are accepted at run time (they become known events) but not by the compiler;
 * declare them at creation (`createSession({ events: [AddStep] })`) to dispatch them typed, as for
 * installed machines. Snapshots, restore and recordings cover the slice from its install on.
 * @throws `DuplicateSliceError` when a slice of that name is already in the session;
 * `InvalidSliceDefinitionError` when an `initial` item fails the schema or is not JSON data;
 * `StorageAheadError`; `SessionDisposedError`. Nothing is installed then.
 * @example
 * ```ts
 * const AgentPlan = defineSlice('agentPlan', {
 *   policy: 'state',
 *   schema: z.object({ steps: z.array(z.string()) }),
 *   reducers: ({ produceLatest }) => [produceLatest(AddStep, (plan, e) => { plan.steps.push(e.payload.step); })],
 * });
 * session.install(AgentPlan, { initial: () => [{ steps: [] }] });
 * session.dispatch(AddStep({ step: 'read the issue' }));
 * session.slice(AgentPlan).latest(); // { steps: ['read the issue'] }
 * ```
 */
export function installSlice<TItem>(session: Session, def: SliceDef<string, TItem>, options: InstallSliceOptions<TItem> = {}): SliceHandle<TItem> {
  const internals: SessionInternals = session[SESSION_INTERNALS];
  if (internals.disposed) throw new SessionDisposedError(`install slice ${quote(def.name)}`);
  let installed: SliceDef<string, TItem> = def;
  if (options.initial !== undefined) {
    const given: unknown = typeof options.initial === 'function' ? options.initial() : options.initial;
    if (!Array.isArray(given)) {
      throw new InvalidSliceDefinitionError(def.name, !DEV ? codedMessage('E51', typeof given) : 'install(def, { initial }) takes an array of items or a function returning one.');
    }
    // Checked as defineSlice checks its initial items; the definition itself stays as it was.
    installed = Object.freeze({ ...def, initial: Object.freeze(initialItems(def.name, def.schema, given)) });
  }
  internals.addSlice(installed);
  const handle = session.slice(installed);
  internals.dispatchSystem(SliceInstalled({ slice: def.name, items: handle.size }), LIBRARY_META);
  return handle;
}
