import { assertInInjectionContext, DestroyRef, inject, InjectionToken, runInInjectionContext, type Injector, type Provider } from '@angular/core';
import type { CoreStore as CoreSession } from '../session/session-types';
import type { Session } from '../store/create-session';
import { SessionNotProvidedError } from './errors';

/** @internal The DI token of the provided session. */
export const SESSION = new InjectionToken<CoreSession>('rxslice session');

/** Options of the `inject*` functions: run outside an injection context with an explicit injector (as `toSignal` takes one). */
export interface InjectOptions {
  /** The injector to read the session from and to tie the subscription's lifetime to. Default: the current injection context. */
  readonly injector?: Injector;
}

/**
 * Provides a session to an injector (an application, a route, a component or `TestBed`), for
 * {@link injectSession}, {@link injectSlice}, {@link injectLatest}, {@link injectComputed},
 * {@link injectDispatch} and {@link injectMachine}.
 *
 * @remarks Pass the session itself (the caller owns it and disposes it), or a factory run once
 * in the injector's context on first injection: the injector then owns the session and
 * disposes it when it is destroyed (`DestroyRef`). Providers nest: the nearest one wins.
 * @example
 * ```ts
 * bootstrapApplication(App, { providers: [provideZonelessChangeDetection(), provideSession(() => createSession({ slices: [Messages] }))] });
 * ```
 */
export function provideSession(session: CoreSession | (() => CoreSession)): Provider {
  if (typeof session !== 'function') return { provide: SESSION, useValue: session };
  return {
    provide: SESSION,
    useFactory: () => {
      const created = session();
      inject(DestroyRef).onDestroy(() => created.dispose());
      return created;
    },
  };
}

/** @internal Runs `fn` in the injection context of `options.injector`, or checks that there is one. */
export function inContext<T>(caller: (...args: never[]) => unknown, options: InjectOptions | undefined, fn: () => T): T {
  if (options?.injector !== undefined) return runInInjectionContext(options.injector, fn);
  assertInInjectionContext(caller);
  return fn();
}

/** @internal The provided session, or {@link SessionNotProvidedError} naming `caller`. Call in an injection context. */
export function providedSession(caller: string): CoreSession {
  const session = inject(SESSION, { optional: true });
  if (session === null) throw new SessionNotProvidedError(caller);
  return session;
}

/**
 * The provided session, typed as `TSession` (default: the session `createSession` returns).
 *
 * @remarks Call in an injection context (a constructor, a field initialiser, a factory) or pass
 * `{ injector }`. The session object never changes; read state with the signal injectors.
 * @throws {@link SessionNotProvidedError} when no session was provided; Angular's NG0203 outside
 * an injection context.
 * @example
 * ```ts
 * class Chat { private readonly session = injectSession<typeof appSession>(); }
 * ```
 */
export function injectSession<TSession extends CoreSession = Session>(options?: InjectOptions): TSession {
  return inContext(injectSession, options, () => providedSession('injectSession()') as TSession);
}

/**
 * {@link injectSession} typed for one session type, declared once: the returned function is
 * `injectSession` itself, typed `(options?) => TSession`.
 *
 * @typeParam TSession - The session's type, usually `typeof session`.
 * @returns `injectSession`, with its type fixed (no new function: nothing happens at run time).
 * @example
 * ```ts
 * export const injectAppSession = injectSession.withTypes<typeof session>();
 * class Chat { private readonly session = injectAppSession(); }
 * ```
 */
injectSession.withTypes = function withTypes<TSession extends CoreSession>(): (options?: InjectOptions) => TSession {
  return injectSession as (options?: InjectOptions) => TSession;
};
