import { RxSliceError } from '../internal/errors';

/**
 * Thrown by an `rxslice/vue` composable that finds no session: none was provided above the
 * component ({@link provideSession}), or the composable was called outside `setup()` (there is no
 * injection context to look in).
 *
 * @remarks Code `SESSION_NOT_PROVIDED` (the code of `rxslice/react`'s and `rxslice/angular`'s
 * errors of that name). Thrown from `setup()`, so `onErrorCaptured` and `app.config.errorHandler`
 * see it.
 * @example
 * ```ts
 * mount(Counter); // throws SessionNotProvidedError: useSlice() needs a session, but no provideSession(session) is above this component ...
 * ```
 */
export class SessionNotProvidedError extends RxSliceError {
  override readonly name = 'SessionNotProvidedError';
  constructor(
    /** The composable that needed a session, e.g. `useSlice()`. */
    readonly composable: string,
    /** True when it was called where no injection context exists (outside `setup()`). */
    readonly outsideSetup = false,
  ) {
    super(
      'SESSION_NOT_PROVIDED',
      outsideSetup
        ? `${composable} needs a session but was called outside setup(). Call it in a component's setup() (or <script setup>), inside app.runWithContext(), or use the composables of createSessionComposables(session), which know their session.`
        : `${composable} needs a session, but no provideSession(session) is above this component. Call provideSession(session) in a parent's setup(), or provideSession(session, app) for the whole app (createSession from 'rxslice').`,
    );
  }
}

/**
 * Thrown by an `rxslice/vue` composable that subscribes (every one but `useSession` and
 * `useDispatch`) when no effect scope is active: nothing would ever unsubscribe it.
 *
 * @remarks Code `EFFECT_SCOPE_REQUIRED`. A component's `setup()` always has a scope; elsewhere (a
 * store module, a test) run the composable inside `effectScope().run(...)` and `stop()` the scope
 * to unsubscribe.
 * @example
 * ```ts
 * const { useSlice } = createSessionComposables(session);
 * useSlice(Messages); // throws EffectScopeRequiredError: useSlice() subscribes to the session ...
 * const scope = effectScope();
 * const messages = scope.run(() => useSlice(Messages))!; // fine; scope.stop() unsubscribes
 * ```
 */
export class EffectScopeRequiredError extends RxSliceError {
  override readonly name = 'EffectScopeRequiredError';
  constructor(
    /** The composable that was called, e.g. `useSlice()`. */
    readonly composable: string,
  ) {
    super(
      'EFFECT_SCOPE_REQUIRED',
      `${composable} subscribes to the session, but no effect scope is active to unsubscribe it. Call it in a component's setup(), or inside effectScope().run(() => ...) and stop() the scope when done.`,
    );
  }
}
