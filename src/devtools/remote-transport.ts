import type { DevToolsState, Step, Transport, TransportHost } from './devtools-transport';
import { DevToolsError } from './devtools-transport';

const MARK = '__rxslice';
const STOP = '@@rxslice/devtools-stop';

interface ShadowStore {
  getState(): DevToolsState;
  dispatch(action: unknown): unknown;
  subscribe(listener: () => void): () => void;
  liftedStore: { getState(): { nextActionId: number; actionsById: Record<number, { action: unknown }> } };
}

/**
 * @internal The Node transport: a shadow Redux store, enhanced by `@redux-devtools/remote`,
 * whose state is the session's slices (each step's state). `@redux-devtools/instrument` in the
 * enhancer keeps the last `maxAge` states (shared references) and the DevTools' commands move
 * it; whenever its state moves without this bridge dispatching, the session is restored to it,
 * and actions the DevTools dispatched into it go to the session's pipeline.
 * @throws {@link DevToolsError} when `@redux-devtools/remote` or `redux` cannot be loaded.
 */
export async function remoteTransport(
  host: TransportHost,
  name: string,
  remote: { readonly hostname?: string; readonly port?: number; readonly secure?: boolean },
): Promise<Transport> {
  let devToolsEnhancer: (o: unknown) => unknown;
  let createStore: (reducer: unknown, initial: unknown, enhancer: unknown) => ShadowStore;
  try {
    ({ devToolsEnhancer } = (await import('@redux-devtools/remote')) as unknown as { devToolsEnhancer: typeof devToolsEnhancer });
    ({ legacy_createStore: createStore } = (await import('redux')) as unknown as { legacy_createStore: typeof createStore });
  } catch (e) {
    throw new DevToolsError('transport "remote" needs the optional peers @redux-devtools/remote and redux: npm install -D @redux-devtools/remote redux', { cause: e });
  }
  /** The step whose state a shadow state is, for the state sanitizer (which gets only the state). */
  const stepOf = new WeakMap<object, Step>();
  const reducer = (state: DevToolsState, action: { [MARK]?: Step }): DevToolsState => action[MARK]?.state ?? state;
  const store = createStore(
    reducer,
    host.state,
    devToolsEnhancer({
      realtime: true,
      name,
      maxAge: host.maxAge,
      hostname: remote.hostname ?? 'localhost',
      port: remote.port ?? 8000,
      secure: remote.secure ?? false,
      suppressConnectErrors: true,
      // close() dispatches STOP: the enhancer then closes its socket; never relayed.
      stopOn: STOP,
      actionsDenylist: [STOP.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')],
      actionSanitizer: (action: { [MARK]?: Step }) => {
        const step = action[MARK];
        return step === undefined ? action : host.sanitizeAction(step.action, step.id);
      },
      stateSanitizer: (state: DevToolsState) => {
        const step = stepOf.get(state);
        return host.sanitizeState(state, step?.action.changed, step?.id ?? 0);
      },
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
      if (a !== undefined && a[MARK] === undefined && typeof a.type === 'string' && !a.type.startsWith('@@')) host.dispatchFromDevTools(a);
    }
    handled = lifted.nextActionId;
    const state = store.getState();
    if (state !== expected) {
      expected = state;
      host.restoreTo(state);
    }
  });
  return {
    send(step) {
      stepOf.set(step.state, step);
      sending = true;
      try {
        store.dispatch({ type: step.action.type, [MARK]: step });
      } finally {
        sending = false;
      }
      expected = store.getState();
      handled = store.liftedStore.getState().nextActionId;
    },
    close() {
      unsubscribe();
      store.dispatch({ type: STOP });
    },
  };
}
