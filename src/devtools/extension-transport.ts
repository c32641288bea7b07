import type { DevToolsState, Step, Transport, TransportHost } from './devtools-transport';
import { DevToolsError } from './devtools-transport';
import { clip } from '../internal/quote';

/** The Redux DevTools extension's `connect()` result (its documented API for non-Redux stores). */
export interface ExtensionConnection {
  init(state: unknown): void;
  send(action: unknown, state: unknown): void;
  subscribe(listener: (message: ExtensionMessage) => void): (() => void) | undefined;
  unsubscribe?(): void;
}

interface ExtensionMessage {
  readonly type: string;
  readonly payload?: { readonly type?: string; readonly actionId?: number; readonly id?: number; readonly nextLiftedState?: LiftedState } | string;
}

interface LiftedState {
  readonly computedStates?: readonly { readonly state?: unknown }[];
  readonly currentStateIndex?: number;
}

/**
 * @internal The browser transport: the extension's `connect` API. The extension keeps what it
 * was sent; this side keeps the last `maxAge` steps (their states share every slice) to answer
 * its commands: jump, toggle (skip), reset, rollback, commit, import, and dispatched actions.
 */
export function extensionTransport(host: TransportHost, conn: ExtensionConnection): Transport {
  const steps: Step[] = [];
  const skipped = new Set<number>();
  /** The state before the oldest step kept (what reset and rollback go back to). */
  let base: DevToolsState = host.state;

  /** The state at the end of the history: the latest step not skipped, or the base. */
  const stateAfterSkips = (): DevToolsState => {
    for (let i = steps.length - 1; i >= 0; i--) {
      const s = steps[i] as Step;
      if (!skipped.has(s.id)) return s.state;
    }
    return base;
  };

  const onMessage = (message: ExtensionMessage): void => {
    if (message.type === 'ACTION' && typeof message.payload === 'string') {
      let action: unknown;
      try {
        action = JSON.parse(message.payload);
      } catch {
        host.report(new DevToolsError(`an action dispatched from Redux DevTools is not JSON: ${clip(message.payload)}`));
        return;
      }
      host.dispatchFromDevTools(action);
      return;
    }
    if (message.type !== 'DISPATCH' || typeof message.payload !== 'object' || message.payload === undefined) return;
    const p = message.payload;
    switch (p.type) {
      case 'JUMP_TO_STATE':
      case 'JUMP_TO_ACTION':
        host.restoreTo(p.actionId === 0 ? base : steps.find((s) => s.id === p.actionId)?.state);
        return;
      case 'TOGGLE_ACTION':
        if (typeof p.id !== 'number') return;
        if (skipped.has(p.id)) skipped.delete(p.id);
        else skipped.add(p.id);
        host.restoreTo(stateAfterSkips());
        return;
      case 'RESET':
      case 'ROLLBACK':
        host.restoreTo(base);
        return;
      case 'COMMIT':
        base = host.state;
        steps.length = 0;
        return;
      case 'IMPORT_STATE': {
        const lifted = p.nextLiftedState;
        const states = lifted?.computedStates ?? [];
        host.restoreTo(states[lifted?.currentStateIndex ?? states.length - 1]?.state as DevToolsState | undefined);
        return;
      }
    }
  };

  conn.init(host.sanitizeState(host.state, undefined, 0));
  const unsubscribe = conn.subscribe(onMessage);
  return {
    send(step) {
      steps.push(step);
      if (steps.length > host.maxAge) base = (steps.shift() as Step).state;
      conn.send(host.sanitizeAction(step.action, step.id), host.sanitizeState(step.state, step.action.changed, step.id));
    },
    close() {
      unsubscribe?.();
      conn.unsubscribe?.();
    },
  };
}
