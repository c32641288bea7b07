import { bufferTime, filter, Subject, Subscription, takeUntil } from 'rxjs';
import { RxSliceError } from '../internal/errors';
import type { Event } from '../events/event';
import type { CommittedEnvelope, Session } from '../session/create-session';
import { SESSION_INTERNALS } from '../session/internals';

/** The slices of a session as Redux DevTools shows them: slice name → items. */
export type DevToolsState = Readonly<Record<string, readonly unknown[]>>;

/** A committed event as Redux DevTools shows it (an action). */
export interface DevToolsAction {
  readonly type: string;
  readonly payload: unknown;
  readonly seq: number;
  readonly meta: unknown;
  /** Slices the event changed. */
  readonly changed: readonly string[];
}

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

/** Thrown by {@link connectDevTools} when no transport is available or an option is invalid. */
export class DevToolsError extends RxSliceError {
  override readonly name = 'DevToolsError';
  constructor(message: string, options?: { cause?: unknown }) {
    super('DEVTOOLS', message, options);
  }
}

/** The Redux DevTools extension's `connect()` result (its documented API for non-Redux stores). */
interface ExtensionConnection {
  init(state: unknown): void;
  send(action: unknown, state: unknown): void;
  subscribe(listener: (message: ExtensionMessage) => void): (() => void) | undefined;
  unsubscribe?(): void;
  error?(message: string): void;
}

interface ExtensionMessage {
  readonly type: string;
  readonly payload?: { readonly type?: string; readonly actionId?: number; readonly id?: number; readonly nextLiftedState?: LiftedState } | string;
  readonly state?: string;
}

interface LiftedState {
  readonly computedStates?: readonly { readonly state?: unknown }[];
  readonly currentStateIndex?: number;
  readonly skippedActionIds?: readonly number[];
  readonly stagedActionIds?: readonly number[];
}

/** What the bridge sends for one envelope. */
interface Step {
  readonly id: number;
  readonly seq: number;
  readonly action: DevToolsAction;
  /** Every slice after the event (shared references, nothing copied). */
  readonly state: DevToolsState;
}

/** The library event a restore commits; the bridge's own restores are not sent back. */
const RESTORED = 'rxslice.session.restored';
const MARK = '__rxslice';
const STOP = '@@rxslice/devtools-stop';

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
export async function connectDevTools(session: Session, options: DevToolsOptions = {}): Promise<DevToolsConnection> {
  const name = options.name ?? 'rxslice';
  const maxAge = options.maxAge ?? 50;
  const latencyMs = options.latencyMs ?? 50;
  if (!Number.isInteger(maxAge) || maxAge < 1) throw new DevToolsError(`maxAge must be an integer ≥ 1, got ${String(maxAge)}.`);
  if (!(latencyMs >= 0)) throw new DevToolsError(`latencyMs must be ≥ 0, got ${String(latencyMs)}.`);
  if (session[SESSION_INTERNALS].disposed) throw new DevToolsError('the session is disposed.');
  const ext = (globalThis as { __REDUX_DEVTOOLS_EXTENSION__?: { connect(o: unknown): ExtensionConnection } }).__REDUX_DEVTOOLS_EXTENSION__;
  const transport = options.transport ?? (ext !== undefined ? 'extension' : 'remote');
  const bridge = new Bridge(session, options, maxAge);
  if (transport === 'extension') {
    if (ext === undefined) throw new DevToolsError('transport "extension": the Redux DevTools extension is not installed in this browser (no window.__REDUX_DEVTOOLS_EXTENSION__).');
    bridge.useExtension(ext.connect({ name, maxAge, features: { jump: true, skip: true, import: true, dispatch: true, reorder: false, persist: false, lock: false, pause: false } }));
  } else {
    await bridge.useRemote(name, options.remote ?? {});
  }
  bridge.start(latencyMs);
  return bridge;
}

class Bridge implements DevToolsConnection {
  sent = 0;
  restores = 0;
  dispatched = 0;
  private nextId = 1;
  /** The last `maxAge` steps sent, oldest first. */
  private readonly steps: Step[] = [];
  private readonly skipped = new Set<number>();
  private readonly subscription = new Subscription();
  /** Restores this bridge made: their envelopes are not sent back. */
  private ownRestores = 0;
  private send: (step: Step) => void = () => {};
  private close: () => void = () => {};
  private base: DevToolsState;
  private current: DevToolsState;

  constructor(
    private readonly session: Session,
    private readonly options: DevToolsOptions,
    private readonly maxAge: number,
  ) {
    this.base = this.current = stateOf(session);
  }

  /** Completes the collected stream on disconnect, so that `bufferTime` hands over what it holds. */
  private readonly stop$ = new Subject<void>();

  start(latencyMs: number): void {
    const committed = this.session.committed$.pipe(
      takeUntil(this.stop$),
      filter((c) => {
        if (c.event.type === RESTORED && this.ownRestores > 0) {
          this.ownRestores--;
          this.current = stateOf(this.session);
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
    const next: Record<string, readonly unknown[]> = { ...this.current };
    for (const name of c.changed) next[name] = this.session.read(name);
    this.current = next;
    const action: DevToolsAction = { type: c.event.type, payload: (c.event as { payload?: unknown }).payload, seq: c.seq, meta: c.meta, changed: c.changed };
    const step: Step = { id: this.nextId++, seq: c.seq, action, state: next };
    this.steps.push(step);
    if (this.steps.length > this.maxAge) this.base = (this.steps.shift() as Step).state;
    this.sent++;
    this.send(step);
  }

  /** The action as sent: the user's sanitizer over the plain action. */
  sanitizeAction(action: DevToolsAction, id: number): unknown {
    return this.options.actionSanitizer ? this.options.actionSanitizer(action, id) : action;
  }

  /** The state as sent for step `step`: its changed slices (or all), through the user's sanitizer. */
  sanitizeState(state: DevToolsState, changed: readonly string[] | undefined, id: number): unknown {
    let sent: DevToolsState = state;
    if (changed !== undefined && this.options.state !== 'full') {
      const subset: Record<string, readonly unknown[]> = {};
      for (const name of changed) if (name in state) subset[name] = state[name] as readonly unknown[];
      sent = subset;
    }
    return this.options.stateSanitizer ? this.options.stateSanitizer(sent, id) : sent;
  }

  /** Restores the session to `state` (the slices in it that differ), through one audited restore. */
  restoreTo(state: DevToolsState | undefined): void {
    if (state === undefined || state === null || typeof state !== 'object') return;
    const snap = this.session.snapshot({ includeLogs: true });
    const names = Object.keys(state).filter((n) => n in snap.slices && state[n] !== this.session.read(n));
    if (names.length === 0) return;
    const slices: Record<string, { policy: string; version: number; items: readonly unknown[] }> = {};
    for (const n of names) {
      const entry = snap.slices[n] as { policy: string; version: number };
      const items = state[n];
      slices[n] = { policy: entry.policy, version: entry.version, items: Array.isArray(items) ? items : [] };
    }
    this.ownRestores++;
    try {
      this.session.restore({ ...snap.toJSON(), seq: snap.seq, at: snap.at, slices } as never, { slices: names });
      this.restores++;
    } catch (e) {
      this.ownRestores--;
      this.session[SESSION_INTERNALS].reportError(e instanceof RxSliceError ? e : new DevToolsError('a restore from Redux DevTools failed', { cause: e }));
    }
  }

  /** An event from Redux DevTools: validated and dispatched like any other. */
  dispatchFromDevTools(action: unknown): void {
    try {
      this.session.dispatch(action as Event, { source: 'redux-devtools' });
      this.dispatched++;
    } catch (e) {
      // The session reports its own refusals (invalid event, throwing reducer) on errors$.
      if (!(e instanceof RxSliceError)) this.session[SESSION_INTERNALS].reportError(new DevToolsError('an action dispatched from Redux DevTools failed', { cause: e }));
    }
  }

  /** The state the DevTools history shows at its end: the latest step not skipped, or the base. */
  private stateAfterSkips(): DevToolsState {
    for (let i = this.steps.length - 1; i >= 0; i--) {
      const s = this.steps[i] as Step;
      if (!this.skipped.has(s.id)) return s.state;
    }
    return this.base;
  }

  useExtension(conn: ExtensionConnection): void {
    conn.init(this.sanitizeState(this.current, undefined, 0));
    this.send = (step) => conn.send(this.sanitizeAction(step.action, step.id), this.sanitizeState(step.state, step.action.changed, step.id));
    const unsubscribe = conn.subscribe((message) => this.onExtensionMessage(message));
    this.close = () => {
      unsubscribe?.();
      conn.unsubscribe?.();
    };
  }

  private onExtensionMessage(message: ExtensionMessage): void {
    if (message.type === 'ACTION' && typeof message.payload === 'string') {
      let action: unknown;
      try {
        action = JSON.parse(message.payload);
      } catch {
        this.session[SESSION_INTERNALS].reportError(new DevToolsError(`an action dispatched from Redux DevTools is not JSON: ${message.payload.slice(0, 200)}`));
        return;
      }
      this.dispatchFromDevTools(action);
      return;
    }
    if (message.type !== 'DISPATCH' || typeof message.payload !== 'object' || message.payload === undefined) return;
    const p = message.payload;
    switch (p.type) {
      case 'JUMP_TO_STATE':
      case 'JUMP_TO_ACTION': {
        const id = p.actionId;
        this.restoreTo(id === 0 ? this.base : this.steps.find((s) => s.id === id)?.state);
        return;
      }
      case 'TOGGLE_ACTION': {
        if (typeof p.id !== 'number') return;
        if (this.skipped.has(p.id)) this.skipped.delete(p.id);
        else this.skipped.add(p.id);
        this.restoreTo(this.stateAfterSkips());
        return;
      }
      case 'RESET':
      case 'ROLLBACK':
        this.restoreTo(this.base);
        return;
      case 'COMMIT':
        this.base = this.current;
        this.steps.length = 0;
        return;
      case 'IMPORT_STATE': {
        const lifted = p.nextLiftedState;
        const states = lifted?.computedStates ?? [];
        this.restoreTo(states[lifted?.currentStateIndex ?? states.length - 1]?.state as DevToolsState | undefined);
        return;
      }
    }
  }

  async useRemote(name: string, remote: { readonly hostname?: string; readonly port?: number; readonly secure?: boolean }): Promise<void> {
    let devToolsEnhancer: (o: unknown) => unknown;
    let createStore: (reducer: unknown, initial: unknown, enhancer: unknown) => ShadowStore;
    try {
      ({ devToolsEnhancer } = (await import('@redux-devtools/remote')) as unknown as { devToolsEnhancer: typeof devToolsEnhancer });
      ({ legacy_createStore: createStore } = (await import('redux')) as unknown as { legacy_createStore: typeof createStore });
    } catch (e) {
      throw new DevToolsError('transport "remote" needs the optional peers @redux-devtools/remote and redux: npm install -D @redux-devtools/remote redux', { cause: e });
    }
    // A shadow Redux store whose state is the session's slices: @redux-devtools/instrument keeps
    // the last maxAge states (shared references), and the DevTools' commands move it; the bridge
    // sees those moves and restores the session.
    const changedOf = new WeakMap<object, readonly string[]>();
    const idOf = new WeakMap<object, number>();
    const reducer = (state: DevToolsState, action: { [MARK]?: Step }): DevToolsState => action[MARK]?.state ?? state;
    const store = createStore(
      reducer,
      this.current,
      devToolsEnhancer({
        realtime: true,
        name,
        maxAge: this.maxAge,
        hostname: remote.hostname ?? 'localhost',
        port: remote.port ?? 8000,
        secure: remote.secure ?? false,
        suppressConnectErrors: true,
        // disconnect() dispatches STOP: the enhancer then closes its socket; never relayed.
        stopOn: STOP,
        actionsDenylist: [STOP.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')],
        actionSanitizer: (action: { [MARK]?: Step }) => {
          const step = action[MARK];
          return step === undefined ? action : this.sanitizeAction(step.action, step.id);
        },
        stateSanitizer: (state: DevToolsState) => this.sanitizeState(state, changedOf.get(state), idOf.get(state) ?? 0),
      }),
    );
    let expected: DevToolsState = store.getState();
    let handled = store.liftedStore.getState().nextActionId;
    let sending = false;
    const unsubscribe = store.subscribe(() => {
      if (sending) return;
      const lifted = store.liftedStore.getState();
      // Actions dispatched from the DevTools (not by this bridge): into the session's pipeline.
      for (let id = handled; id < lifted.nextActionId; id++) {
        const a = lifted.actionsById[id]?.action as { [MARK]?: Step; type?: string } | undefined;
        if (a !== undefined && a[MARK] === undefined && typeof a.type === 'string' && !a.type.startsWith('@@')) this.dispatchFromDevTools(a);
      }
      handled = lifted.nextActionId;
      const state = store.getState();
      if (state !== expected) {
        expected = state;
        this.restoreTo(state);
      }
    });
    this.send = (step) => {
      changedOf.set(step.state, step.action.changed);
      idOf.set(step.state, step.id);
      sending = true;
      try {
        store.dispatch({ type: step.action.type, [MARK]: step });
      } finally {
        sending = false;
      }
      expected = store.getState();
      handled = store.liftedStore.getState().nextActionId;
    };
    this.close = () => {
      unsubscribe();
      store.dispatch({ type: STOP });
    };
  }

  disconnect(): void {
    this.stop$.next();
    this.subscription.unsubscribe();
    this.close();
    this.send = () => {};
  }
}

interface ShadowStore {
  getState(): DevToolsState;
  dispatch(action: unknown): unknown;
  subscribe(listener: () => void): () => void;
  liftedStore: {
    getState(): { nextActionId: number; actionsById: Record<number, { action: unknown }> };
    dispatch(action: unknown): unknown;
  };
}

/** Every slice of the session, logs included (shared references). */
function stateOf(session: Session): DevToolsState {
  const snap = session.snapshot({ includeLogs: true });
  const state: Record<string, readonly unknown[]> = {};
  for (const [name, entry] of Object.entries(snap.slices)) state[name] = entry.items;
  return state;
}
