import { RxSliceError } from '../internal/errors';

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

/** Thrown by `connectDevTools` when no transport is available or an option is invalid. */
export class DevToolsError extends RxSliceError {
  override readonly name = 'DevToolsError';
  constructor(message: string, options?: { cause?: unknown }) {
    super('DEVTOOLS', message, options);
  }
}

/** @internal What the bridge sends for one committed envelope. */
export interface Step {
  /** The DevTools action id (1, 2, ...). */
  readonly id: number;
  readonly action: DevToolsAction;
  /** Every slice after the event (shared references, nothing copied). */
  readonly state: DevToolsState;
}

/** @internal What a transport may ask of the bridge. */
export interface TransportHost {
  readonly maxAge: number;
  /** Every slice now (after the bridge's own restores too). */
  readonly state: DevToolsState;
  sanitizeAction(action: DevToolsAction, id: number): unknown;
  /** The state as sent: `changed` slices only (unless `state: 'full'`), through the user's sanitizer. */
  sanitizeState(state: DevToolsState, changed: readonly string[] | undefined, id: number): unknown;
  /** Restores the session to `state` (the slices in it that differ), through one audited restore. */
  restoreTo(state: DevToolsState | undefined): void;
  /** Dispatches an action from DevTools through the session's pipeline (validated). */
  dispatchFromDevTools(action: unknown): void;
  /** Reports a DevTools failure on the session's `errors$`. */
  report(error: DevToolsError): void;
}

/** @internal A connection to Redux DevTools: the extension, or a remote server. */
export interface Transport {
  send(step: Step): void;
  close(): void;
}
