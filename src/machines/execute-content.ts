import { isGuardRefusal, type ActionArgs, type MachineAction } from './actions.js';
import type { TransitionNode } from './state-node.js';
import type { MachineEvent } from './machine-event.js';
import { actionArgs, type InterpreterState } from './interpreter-state.js';
import { clip } from '../internal/quote';

const resolve = <T>(v: T | ((args: ActionArgs<unknown>) => T), it: InterpreterState): T =>
  typeof v === 'function' ? (v as (args: ActionArgs<unknown>) => T)(actionArgs(it)) : v;

/** Queues `error.execution` (SCXML 5.10.1 platform error) and records the cause. */
export function raiseExecutionError(it: InterpreterState, error: unknown): void {
  it.errors.push(error);
  const message = error instanceof Error ? error.message : String(error);
  it.internalQueue.push({ event: { type: 'error.execution', payload: { message } }, kind: 'platform' });
}

/**
 * Evaluates a transition's guard: only `true` holds (`false` and a `refuse(reason)` refusal do
 * not); a throwing guard is false and raises `error.execution` (SCXML 5.9.1). While
 * `it.recordRefusals` is on, a refusal is recorded with its reason (for `InvalidTransitionError`).
 */
export function evaluateGuard(it: InterpreterState, t: TransitionNode): boolean {
  const guard = t.guard;
  if (guard === undefined) return true;
  try {
    const result = guard(actionArgs(it));
    if (result === true) return true;
    if (it.recordRefusals === true) (it.refusals ??= []).push({ transition: t, verdict: 'refused', reason: isGuardRefusal(result) ? result.reason : undefined });
    return false;
  } catch (error) {
    raiseExecutionError(it, error);
    if (it.recordRefusals === true) (it.refusals ??= []).push({ transition: t, verdict: 'threw', reason: error instanceof Error ? error.message : String(error) });
    return false;
  }
}

/**
 * Runs one block of executable content in order. An error stops the rest of the block
 * and raises `error.execution`; later blocks still run (SCXML 4.9).
 */
export function executeBlock(it: InterpreterState, actions: readonly MachineAction<unknown>[]): void {
  try {
    for (const action of actions) executeAction(it, action);
  } catch (error) {
    raiseExecutionError(it, error);
  }
}

function checkEvent(event: MachineEvent): MachineEvent {
  if (event === null || typeof event !== 'object' || typeof event.type !== 'string' || event.type.length === 0)
    throw new TypeError(`An action produced an invalid event ${clip(JSON.stringify(event))}: expected { type: string, payload? }.`);
  return event;
}

function executeAction(it: InterpreterState, action: MachineAction<unknown>): void {
  if (typeof action === 'function') {
    const more = action(actionArgs(it));
    if (more === undefined) return;
    if (Array.isArray(more)) for (const a of more as readonly MachineAction<unknown>[]) executeAction(it, a);
    else executeAction(it, more as MachineAction<unknown>);
    return;
  }
  switch (action.kind) {
    case 'block':
      executeBlock(it, action.actions);
      return;
    case 'assign': {
      const patch = action.update(actionArgs(it));
      if (patch === null || typeof patch !== 'object') throw new TypeError('assign() must return an object to merge into the context.');
      const base = it.context !== null && typeof it.context === 'object' ? it.context : {};
      it.context = { ...(base as object), ...(patch as object) };
      return;
    }
    case 'raise': {
      const event = checkEvent(resolve(action.event, it));
      it.raised.push(event);
      it.internalQueue.push({ event, kind: 'internal' });
      return;
    }
    case 'send': {
      const event = checkEvent(resolve(action.event, it));
      const delayMs = action.delayMs === undefined ? 0 : resolve(action.delayMs, it);
      if (typeof delayMs !== 'number' || !(delayMs >= 0)) throw new TypeError(`send(): delayMs must be a number >= 0, got ${clip(delayMs)}.`);
      const seq = ++it.sendSeq;
      const sendIdGenerated = action.id === undefined && action.storeId === undefined;
      const sendId = action.id === undefined ? `send.${seq}` : resolve(action.id, it);
      if (action.storeId) {
        const patch = action.storeId(actionArgs(it), sendId);
        it.context = { ...(it.context as object), ...(patch as object) };
      }
      if (delayMs === 0) {
        it.externalQueue.push({ event, kind: 'external', sendId, ...(sendIdGenerated ? { sendIdGenerated } : {}) });
      } else {
        const pending = { sendId, event, dueAtMs: it.now + delayMs, seq, ...(sendIdGenerated ? { sendIdGenerated } : {}) };
        it.delayed = [...it.delayed, pending].sort((a, b) => a.dueAtMs - b.dueAtMs || a.seq - b.seq);
        it.sent.push(pending);
      }
      return;
    }
    case 'cancel': {
      const sendId = resolve(action.sendId, it);
      if (it.delayed.some((d) => d.sendId === sendId)) {
        it.delayed = it.delayed.filter((d) => d.sendId !== sendId);
        it.cancelled.push(sendId);
      }
      return;
    }
    case 'effect':
      it.effects.push(resolve(action.effect, it));
      return;
    case 'log':
      it.logs.push({ label: action.label, value: resolve(action.value, it) });
      return;
  }
}
