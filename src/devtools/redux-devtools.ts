import { captureSnapshot, snapshotLayer } from '../session/snapshot-layer';
import { bufferTime, filter, Subject, Subscription, takeUntil } from 'rxjs';
import { RxSliceError } from '../internal/errors';
import type { Event } from '../events/event';
import type { CoreStore } from '../session/session-types';
import type { CommittedEnvelope } from '../session/committed-envelope';
import { SESSION_INTERNALS } from '../session/internals';
import { DevToolsError, type DevToolsAction, type DevToolsState, type Step, type Transport, type TransportHost } from './devtools-transport';
import { extensionTransport, type ExtensionConnection } from './extension-transport';
import { remoteTransport } from './remote-transport';
import { clip } from '../internal/quote';

export { DevToolsError } from './devtools-transport';
export type { DevToolsAction, DevToolsState } from './devtools-transport';

/** The library event a restore commits; the bridge's own restores are not sent back. */
const RESTORED = 'rxslice.session.restored';

/** Options of {@link connectDevTools}. */
export interface DevToolsOptions {
  /** The instance name shown in Redux DevTools. Default `'rxslice'`. */
  readonly name?: string;
  /** Actions kept by Redux DevTools (and jumps it can make). Default 50. */
  readonly maxAge?: number;
  /** Rewrites an action before it is sent (drop secrets, shorten payloads). */
  readonly actionSanitizer?: (action: DevToolsAction, id: number) => unknown;
  /** Rewrites the state before it is sent. It receives what would be sent: the changed slices, or every slice with `state: 'full'`. */
  readonly stateSanitizer?: (state: DevToolsState, id: number) => unknown;
  /**
   * Committed events are collected for this long (ms, on the session's scheduler) and then sent
   * together, so serialising for DevTools never runs inside a dispatch. Default 50; 0 sends
   * right after each commit (still outside the reducers).
   */
  readonly latencyMs?: number;
  /** What each action carries as its state: `'changed'` (default), the slices the event changed; `'full'`, every slice. */
  readonly state?: 'changed' | 'full';
  /**
   * Where to send. Default: the Redux DevTools browser extension when
   * `window.__REDUX_DEVTOOLS_EXTENSION__` exists, else a `@redux-devtools/cli` server through
   * `@redux-devtools/remote` at `remote` (default `localhost:8000`).
   */
  readonly transport?: 'extension' | 'remote';
  /** The `@redux-devtools/cli` server (`redux-devtools --hostname=... --port=...`). */
  readonly remote?: { readonly hostname?: string; readonly port?: number; readonly secure?: boolean };
}

/** A running bridge. */
export interface DevToolsConnection {
  /** Actions sent so far. */
  readonly sent: number;
  /** Restores made from Redux DevTools (jump, skip, import, reset, rollback). */
  readonly restores: number;
  /** Events dispatched from Redux DevTools into the session (after validation). */
  readonly dispatched: number;
  /** Sends what is still collected, stops listening, and closes the connection. */
  disconnect(): void;
}

/**
 * Connects a session to Redux DevTools: every committed event is sent as an action (type,
 * payload, seq, meta, changed slices) with the slices it changed as the state, and only what is
 * new: never the whole history, never on the dispatch path (`latencyMs`).
 *
 * - **Browser**: the Redux DevTools extension (`window.__REDUX_DEVTOOLS_EXTENSION__.connect`).
 * - **Node**: a `@redux-devtools/cli` server (`npx redux-devtools --hostname=localhost --port=8000`),
 *   through `@redux-devtools/remote` (optional peer, with `redux`).
 *
 * From Redux DevTools: **jump** (to an action or state), **skip**, **import**, **reset**,
 * **rollback** restore the session through one audited `rxslice.session.restored` event
 * (`session.restore`): items are validated, and no effect, saga step or timer runs again. A
 * restore the bridge made is not sent back as an action, so the DevTools history stays as it is.
 * **Dispatch** from DevTools goes through `session.dispatch` (validated; a rejected event is
 * reported on `session.errors$` and changes nothing).
 *
 * @remarks Skip follows the states each event committed, not a re-run of reducers: skipping an
 * event shows (and restores) the state before it at its place; later events keep the states
 * they committed. Jumps reach the last `maxAge` actions. Events committed while DevTools shows a
 * past state are appended after the latest action, as Redux DevTools does for a Redux store.
 * Source: the Redux DevTools extension API (`connect`, `send`, `subscribe`) and the
 * remote-redux-devtools socket protocol (`log` channel, `START`/`ACTION`/`STATE`/`DISPATCH`).
 * @throws {@link DevToolsError} for a bad option, or when `@redux-devtools/remote` or `redux`
 * cannot be loaded for the remote transport (the returned promise rejects).
 * @example
 * ```ts
 * const devtools = await connectDevTools(session, { name: 'agent', maxAge: 100, remote: { port: 8000 } });
 * session.dispatch(StepAdded({ step: 'plan' })); // shows up in Redux DevTools as plan/stepAdded
 * devtools.disconnect();
 * ```
 */
export async function connectDevTools(session: CoreStore, options: DevToolsOptions = {}): Promise<DevToolsConnection> {
  const name = options.name ?? 'rxslice';
  const maxAge = options.maxAge ?? 50;
  const latencyMs = options.latencyMs ?? 50;
  if (!Number.isInteger(maxAge) || maxAge < 1) throw new DevToolsError(`maxAge must be an integer ≥ 1, got ${clip(maxAge)}.`);
  if (!(latencyMs >= 0)) throw new DevToolsError(`latencyMs must be ≥ 0, got ${clip(latencyMs)}.`);
  if (session[SESSION_INTERNALS].disposed) throw new DevToolsError('the session is disposed.');
  const ext = (globalThis as { __REDUX_DEVTOOLS_EXTENSION__?: { connect(o: unknown): ExtensionConnection } }).__REDUX_DEVTOOLS_EXTENSION__;
  const transport = options.transport ?? (ext !== undefined ? 'extension' : 'remote');
  const bridge = new Bridge(session, options, maxAge);
  if (transport === 'extension') {
    if (ext === undefined) throw new DevToolsError('transport "extension": the Redux DevTools extension is not installed in this browser (no window.__REDUX_DEVTOOLS_EXTENSION__).');
    const conn = ext.connect({ name, maxAge, features: { jump: true, skip: true, import: true, dispatch: true, reorder: false, persist: false, lock: false, pause: false } });
    bridge.transport = extensionTransport(bridge, conn);
  } else {
    bridge.transport = await remoteTransport(bridge, name, options.remote ?? {});
  }
  bridge.start(latencyMs);
  return bridge;
}

class Bridge implements DevToolsConnection, TransportHost {
  sent = 0;
  restores = 0;
  dispatched = 0;
  transport: Transport | undefined = undefined;
  private nextId = 1;
  private readonly subscription = new Subscription();
  /** Completes the collected stream on disconnect, so that `bufferTime` hands over what it holds. */
  private readonly stop$ = new Subject<void>();
  /** Restores this bridge made: their envelopes are not sent back. */
  private ownRestores = 0;
  /** Every slice after the last step sent, or after the bridge's own last restore. */
  state: DevToolsState;

  constructor(
    private readonly session: CoreStore,
    private readonly options: DevToolsOptions,
    readonly maxAge: number,
  ) {
    this.state = stateOf(session);
  }

  start(latencyMs: number): void {
    const committed = this.session.committed$.pipe(
      takeUntil(this.stop$),
      filter((c) => {
        if (c.event.type === RESTORED && this.ownRestores > 0) {
          this.ownRestores--;
          this.state = stateOf(this.session);
          return false;
        }
        return true;
      }),
    );
    if (latencyMs === 0) this.subscription.add(committed.subscribe((c) => this.push(c)));
    else this.subscription.add(committed.pipe(bufferTime(latencyMs, this.session.scheduler), filter((b) => b.length > 0)).subscribe((batch) => batch.forEach((c) => this.push(c))));
  }

  /** One committed envelope → one step (the state it left, sharing every unchanged slice). */
  private push(c: CommittedEnvelope): void {
    const next: Record<string, readonly unknown[]> = { ...this.state };
    for (const name of c.changed) next[name] = this.session.read(name);
    this.state = next;
    const action: DevToolsAction = { type: c.event.type, payload: (c.event as { payload?: unknown }).payload, seq: c.seq, meta: c.meta, changed: c.changed };
    const step: Step = { id: this.nextId++, action, state: next };
    this.sent++;
    this.transport?.send(step);
  }

  sanitizeAction(action: DevToolsAction, id: number): unknown {
    return this.options.actionSanitizer ? this.options.actionSanitizer(action, id) : action;
  }

  sanitizeState(state: DevToolsState, changed: readonly string[] | undefined, id: number): unknown {
    let sent: DevToolsState = state;
    if (changed !== undefined && this.options.state !== 'full') {
      const subset: Record<string, readonly unknown[]> = {};
      for (const name of changed) if (name in state) subset[name] = state[name] as readonly unknown[];
      sent = subset;
    }
    return this.options.stateSanitizer ? this.options.stateSanitizer(sent, id) : sent;
  }

  restoreTo(state: DevToolsState | undefined): void {
    if (state === undefined || state === null || typeof state !== 'object') return;
    const snap = captureSnapshot(this.session, { includeLogs: true });
    const names = Object.keys(state).filter((n) => n in snap.slices && state[n] !== snap.slices[n]?.items);
    if (names.length === 0) return;
    const slices: Record<string, { policy: string; version: number; items: readonly unknown[] }> = {};
    for (const n of names) {
      const entry = snap.slices[n] as { policy: string; version: number };
      const items = state[n];
      slices[n] = { policy: entry.policy, version: entry.version, items: Array.isArray(items) ? items : [] };
    }
    this.ownRestores++;
    try {
      snapshotLayer(this.session).restore({ ...snap.toJSON(), seq: snap.seq, at: snap.at, slices } as never, { slices: names });
      this.restores++;
    } catch (e) {
      this.ownRestores--;
      this.report(e instanceof RxSliceError ? e : new DevToolsError('a restore from Redux DevTools failed', { cause: e }));
    }
  }

  dispatchFromDevTools(action: unknown): void {
    try {
      this.session.dispatch(action as Event, { source: 'redux-devtools' });
      this.dispatched++;
    } catch (e) {
      // The session reports its own refusals (invalid event, throwing reducer) on errors$.
      if (!(e instanceof RxSliceError)) this.report(new DevToolsError('an action dispatched from Redux DevTools failed', { cause: e }));
    }
  }

  report(error: RxSliceError): void {
    this.session[SESSION_INTERNALS].reportError(error);
  }

  disconnect(): void {
    this.stop$.next();
    this.subscription.unsubscribe();
    this.transport?.close();
    this.transport = undefined;
  }
}

/** Every slice of the session, logs included (shared references). */
function stateOf(session: CoreStore): DevToolsState {
  // Not catalogued: the bridge reads the state on every send.
  const snap = captureSnapshot(session, { includeLogs: true });
  const state: Record<string, readonly unknown[]> = {};
  for (const [name, entry] of Object.entries(snap.slices)) state[name] = entry.items;
  return state;
}
