import type { Observable } from 'rxjs';
import { computed } from '../computed/computed';
import { isComputedDef } from '../computed/computed-declaration';
import type { ComputedDef, ComputedSource, SourceValue } from '../computed/define-computed';
import type { MachineDefinition } from '../machines/machine-definition';
import type { MachineSnapshot } from '../machines/machine-snapshot';
import { sessionMachine, type SessionMachine } from '../machines/session-machine';
import type { CoreStore } from '../session/session-types';
import type { SliceDef } from '../slices/reducer';

/**
 * @internal What every UI binding (React, Angular, Vue) reads from a session: `read()` now, and
 * `value$`, which emits that same value synchronously on subscribe and then once per change. Both
 * hand out the session's own objects, the same one until its version changes, so a binding can
 * compare by reference (`Object.is`) and notify exactly on changes.
 */
export interface SessionReader<TValue> {
  readonly value$: Observable<TValue>;
  read(): TValue;
}

/** @internal A slice's items (`handle.all()`). Throws `SliceNotRegisteredError` for a slice the session does not hold. */
export function itemsReader<TItem>(session: CoreStore, def: SliceDef<string, TItem>): SessionReader<readonly TItem[]> {
  const handle = session.slice(def);
  return { value$: handle.all$, read: () => handle.all() };
}

/** @internal A slice's latest item (`handle.latest()`, `undefined` when empty). */
export function latestReader<TItem>(session: CoreStore, def: SliceDef<string, TItem>): SessionReader<TItem | undefined> {
  const handle = session.slice(def);
  return { value$: handle.latest$, read: () => handle.latest() };
}

/** @internal A computed slice's value (`computed(session, def).latest()`). */
export function computedReader<TValue>(session: CoreStore, def: ComputedDef<string, TValue>): SessionReader<TValue> {
  const handle = computed(session, def);
  return { value$: handle.value$, read: () => handle.latest() };
}

/** @internal A slice's items or a computed slice's value: what a selector reads. */
export function sourceReader<TSource extends ComputedSource>(session: CoreStore, source: TSource): SessionReader<SourceValue<TSource>> {
  return (isComputedDef(source) ? computedReader(session, source) : itemsReader(session, source)) as SessionReader<SourceValue<TSource>>;
}

/** @internal An installed machine and its snapshot. Throws `MachineNotInstalledError` when `def` is not installed. */
export function machineReader<TContext, TEventType extends string, TStateId extends string>(
  session: CoreStore,
  def: MachineDefinition<TContext, TEventType, TStateId>,
): SessionReader<MachineSnapshot<TContext, TStateId>> & { readonly machine: SessionMachine<TContext, TEventType, TStateId> } {
  const machine = sessionMachine(session, def);
  return { machine, value$: machine.current$, read: () => machine.current };
}
