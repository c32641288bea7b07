import { getCurrentInstance, hasInjectionContext, inject, onScopeDispose, provide, type App, type InjectionKey } from 'vue';
import { RxSliceError } from '../internal/errors';
import type { CoreStore as CoreSession } from '../session/session-types';
import type { Session } from '../store/create-session';
import { SessionNotProvidedError } from './errors';

/**
 * The injection key under which {@link provideSession} provides the session (for `app.provide`,
 * `inject` or Vue Test Utils' `global.provide`).
 */
export const SessionKey: InjectionKey<CoreSession> = Symbol('rxslice session');

/**
 * Provides a session to the current component's descendants (in `setup()`), or to a whole app
 * (`provideSession(session, app)`, as `app.provide` does), for every `rxslice/vue` composable.
 *
 * @remarks Pass the session (the caller owns it and disposes it), or a factory, called once now:
 * the provider then owns the session and disposes it when the providing component unmounts (or,
 * on Vue 3.5 and later, when the app unmounts). Providers nest: a composable reads the nearest
 * one. Returns the session, so `const session = provideSession(() => createSession(...))` reads well.
 * @param app - Provide to this app instead of the current component (call it before `app.mount`).
 * @throws {@link index!RxSliceError | RxSliceError} (code `PROVIDE_OUTSIDE_SETUP`) when called
 * outside `setup()` without an `app`.
 * @example
 * ```ts
 * const app = createApp(App);
 * provideSession(createSession({ slices: [Messages] }), app);
 * app.mount('#app');
 * ```
 */
export function provideSession<TSession extends CoreSession>(session: TSession | (() => TSession), app?: App): TSession {
  if (app === undefined && getCurrentInstance() === null) {
    throw new RxSliceError(
      'PROVIDE_OUTSIDE_SETUP',
      "provideSession(session) was called outside a component's setup(), where it cannot provide anything. Call it in setup(), or pass the app: provideSession(session, app).",
    );
  }
  const owned = typeof session === 'function';
  const provided = owned ? session() : session;
  if (app !== undefined) {
    app.provide(SessionKey, provided);
    // app.onUnmount arrived in Vue 3.5; before it an app-level factory's session stays undisposed.
    if (owned) (app as { onUnmount?: (fn: () => void) => void }).onUnmount?.(() => provided.dispose());
  } else {
    provide(SessionKey, provided);
    if (owned) onScopeDispose(() => provided.dispose());
  }
  return provided;
}

/**
 * @internal The session a composable named `caller` reads: the provided one, else `fallback` (the
 * session of `createSessionComposables`), else {@link SessionNotProvidedError}.
 */
export function providedSession(caller: string, fallback?: CoreSession): CoreSession {
  if (!hasInjectionContext()) {
    if (fallback !== undefined) return fallback;
    throw new SessionNotProvidedError(caller, true);
  }
  const session = inject(SessionKey, fallback ?? null);
  if (session === null) throw new SessionNotProvidedError(caller);
  return session;
}

/** What {@link useSession} is: the composable, and `withTypes` (Redux Toolkit's shape) for a version typed once. */
export interface UseSession {
  /**
   * The provided session, typed as `TSession` (default: the session `createSession` returns).
   * `TSession` is an assertion about what was provided.
   */
  <TSession extends CoreSession = Session>(): TSession;
  /** `useSession` typed as `TSession` for good: `export const useAppSession = useSession.withTypes<typeof session>()`. */
  withTypes<TSession extends CoreSession>(): () => TSession;
}

/**
 * The session of the nearest {@link provideSession}, typed as `TSession` (default: the session
 * `createSession` returns).
 *
 * @remarks Not reactive and needs no effect scope: the session object never changes. Read state
 * with {@link useSlice}, {@link useLatest}, {@link useComputed}, {@link useSelector} or
 * {@link useMachine}. Typed once with `useSession.withTypes<typeof session>()`, or use
 * {@link createSessionComposables}.
 * @throws {@link SessionNotProvidedError} when none was provided, or outside `setup()`.
 * @example
 * ```ts
 * const session = useSession<typeof appSession>();
 * const epic = session.run(myEpic);
 * onScopeDispose(epic.stop);
 * ```
 */
export const useSession: UseSession = Object.assign(<TSession extends CoreSession = Session>(): TSession => providedSession('useSession()') as TSession, {
  withTypes: <TSession extends CoreSession>() => () => providedSession('useSession()') as TSession,
});
