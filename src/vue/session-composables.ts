import type { ShallowRef } from 'vue';
import { machineState, type MachineState } from '../bindings/machine-state';
import { computedReader, itemsReader, latestReader, machineReader, sourceReader } from '../bindings/readers';
import { select, type Selection } from '../bindings/selection';
import type { ComputedDef, ComputedSource, SourceValue } from '../computed/define-computed';
import type { MachineDefinition } from '../machines/machine-definition';
import type { CoreStore as CoreSession } from '../session/session-types';
import type { SliceDef } from '../slices/reducer';
import { providedSession } from './provide-session';
import { sessionRef } from './session-ref';

/**
 * The composables {@link createSessionComposables} returns: those of `rxslice/vue`, typed by the
 * session `TSession` (its `dispatch` accepts only the events it declares) and falling back to it
 * when none is provided.
 */
export interface SessionComposables<TSession extends CoreSession> {
  /** The provided session, else the factory's, as `TSession`. See {@link useSession}. */
  useSession(): TSession;
  /** `TSession['dispatch']`: an event the session does not declare is a compile error. See {@link useDispatch}. */
  useDispatch(): TSession['dispatch'];
  /** See {@link useSlice}. */
  useSlice<TItem>(def: SliceDef<string, TItem>): Readonly<ShallowRef<readonly TItem[]>>;
  /** See {@link useLatest}. */
  useLatest<TItem>(def: SliceDef<string, TItem>): Readonly<ShallowRef<TItem | undefined>>;
  /** See {@link useComputed}. */
  useComputed<TValue>(def: ComputedDef<string, TValue>): Readonly<ShallowRef<TValue>>;
  /** See {@link useSelector}. */
  useSelector<TSource extends ComputedSource, TSelected>(
    source: TSource,
    selector: (value: SourceValue<TSource>) => TSelected,
    isEqual?: (previous: TSelected, next: TSelected) => boolean,
  ): Readonly<ShallowRef<TSelected>>;
  /** See {@link useMachine}. */
  useMachine<TContext, TEventType extends string, TStateId extends string>(
    def: MachineDefinition<TContext, TEventType, TStateId>,
  ): Readonly<ShallowRef<MachineState<TContext, TEventType, TStateId>>>;
}

/**
 * The `rxslice/vue` composables typed by `session` (Redux Toolkit's `.withTypes()` idea, done once
 * for all of them): `useDispatch()` then accepts only the events `session` declares, so a
 * misspelled event type is a compile error, and `useSession()` is `typeof session`.
 *
 * @remarks Each composable reads the session provided above the component ({@link provideSession})
 * when there is one (a test or a server render can provide its own), and `session` otherwise, so
 * an app with one session needs no `provideSession` at all. Outside `setup()` (a store module)
 * they use `session`; the subscribing ones still need an effect scope there
 * (`effectScope().run(...)`). Semantics are those of {@link useSlice}, {@link useLatest},
 * {@link useComputed}, {@link useSelector}, {@link useMachine}, {@link useDispatch} and
 * {@link useSession}.
 * @example
 * ```ts
 * // session.ts
 * export const session = createSession({ slices: [Messages], events: [Stopped] });
 * export const { useSlice, useDispatch, useComputed } = createSessionComposables(session);
 * // Chat.vue <script setup>
 * const messages = useSlice(Messages);
 * const dispatch = useDispatch();
 * dispatch(MessageAdded({ role: 'user', text: 'hi' })); // dispatch({ type: 'chat/messageAdd', ... }) does not compile
 * ```
 */
export function createSessionComposables<TSession extends CoreSession>(session: TSession): SessionComposables<TSession> {
  const resolve = (caller: string) => providedSession(caller, session);
  return {
    useSession: () => resolve('useSession()') as TSession,
    useDispatch: () => resolve('useDispatch()').dispatch as TSession['dispatch'],
    useSlice: (def) => sessionRef('useSlice()', itemsReader(resolve('useSlice()'), def)),
    useLatest: (def) => sessionRef('useLatest()', latestReader(resolve('useLatest()'), def)),
    useComputed: (def) => sessionRef('useComputed()', computedReader(resolve('useComputed()'), def)),
    useSelector: <TSource extends ComputedSource, TSelected>(
      source: TSource,
      selector: (value: SourceValue<TSource>) => TSelected,
      isEqual: (previous: TSelected, next: TSelected) => boolean = Object.is,
    ) => {
      let last: Selection<TSelected> | undefined;
      return sessionRef('useSelector()', sourceReader(resolve('useSelector()'), source), (input) => (last = select(last, input, selector, isEqual)).output);
    },
    useMachine: (def) => {
      const reader = machineReader(resolve('useMachine()'), def);
      return sessionRef('useMachine()', reader, (snapshot) => machineState(reader.machine, snapshot));
    },
  };
}
