/** What `rxslice watch` does with a budget alert besides showing it: run a command, POST to a URL. */
import { spawn } from 'node:child_process';
import type { BudgetAlert } from './budgets';

/** The JSON an alert is sent as: the alert, its session's label and file. */
export interface AlertPayload extends BudgetAlert {
  readonly type: 'alert';
  readonly label: string;
  readonly file: string;
}

/**
 * Runs `command` through the shell with the alert as JSON in `RXSLICE_ALERT`; resolves with its
 * exit code. Never rejects: a command that cannot start resolves with a message.
 * @example
 * ```ts
 * await runAlertCommand('notify-send "$RXSLICE_ALERT"', payload); // 0
 * ```
 */
export function runAlertCommand(command: string, payload: AlertPayload): Promise<number | string> {
  return new Promise((resolve) => {
    const child = spawn(command, { shell: true, stdio: 'ignore', env: { ...process.env, RXSLICE_ALERT: JSON.stringify(payload) } });
    child.on('error', (e) => resolve(e.message));
    child.on('exit', (code, signal) => resolve(code ?? `killed by ${String(signal)}`));
  });
}

/**
 * POSTs the alert as JSON (`content-type: application/json`) to `url`; resolves with the HTTP
 * status, or a message when the request failed (no retry). Times out after `timeoutMs` (default 5 000).
 * @example
 * ```ts
 * await postAlert('http://127.0.0.1:9000/alerts', payload); // 200
 * ```
 */
export async function postAlert(url: string, payload: AlertPayload, timeoutMs = 5_000): Promise<number | string> {
  try {
    const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(payload), signal: AbortSignal.timeout(timeoutMs) });
    await res.arrayBuffer();
    return res.status;
  } catch (e) {
    return e instanceof Error ? e.message : String(e);
  }
}
