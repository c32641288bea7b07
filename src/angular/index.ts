/**
 * `rxslice/angular`: Angular bindings on signals (Angular 17 and later, an optional peer).
 *
 * - {@link provideSession} provides a session to an injector; {@link injectSession} and
 *   {@link injectDispatch} read it. Type them once with
 *   {@link injectDispatch.withTypes | injectDispatch.withTypes<typeof session>()} (and
 *   {@link injectSession.withTypes}): a plain `injectDispatch()` accepts any event, the typed one
 *   makes a misspelled event type a compile error.
 * - {@link injectSlice}, {@link injectLatest}, {@link injectComputed}, {@link injectComputedFamily} and {@link injectMachine}
 *   return `Signal`s that change exactly when what they hold changed (the session's readers return
 *   the same object until their version changes), zoneless-friendly, and unsubscribe when their
 *   injection context is destroyed (`DestroyRef`). They work with `computed`, `effect`,
 *   `toObservable` and `toSignal`.
 *
 * @example
 * ```ts
 * import { provideSession, injectLatest, injectDispatch } from 'rxslice/angular';
 *
 * class UsageView {
 *   readonly usage = injectLatest(Usage);
 *   private readonly dispatch = injectDispatch.withTypes<typeof session>()(); // only the session's events
 *   add() { this.dispatch(TokensUsed({ input: 1, output: 1 })); }
 * }
 * ```
 */
export { provideSession, injectSession, type InjectOptions } from './provide-session';
export { SessionNotProvidedError } from './errors';
export { injectSlice, injectLatest, injectComputed } from './inject-slice';
export { injectDispatch } from './inject-dispatch';
export { injectComputedFamily } from './inject-computed-family';
export { injectMachine, type MachineSignals } from './inject-machine';
