import { createContext, createElement, useContext, type ReactNode } from 'react';
import type { CoreStore as CoreSession } from '../session/session-types';
import type { Session } from '../store/create-session';
import { SessionNotProvidedError } from './errors';

/** @internal The context holding the provided session (`undefined` outside a provider). */
export const SessionContext = createContext<CoreSession | undefined>(undefined);
SessionContext.displayName = 'RxSliceSession';

/** Props of {@link SessionProvider}. */
export interface SessionProviderProps {
  /** The session the hooks below read and dispatch to. The caller owns it (`dispose()` it yourself). */
  readonly session: CoreSession;
  readonly children?: ReactNode;
}

/**
 * Makes `session` available to every `rxslice/react` hook in `children` (react-redux's
 * `<Provider store>`).
 *
 * @remarks Renders nothing of its own. It neither creates nor disposes the session: create it
 * once (outside render, or in a `useState` initialiser) and dispose it when the app goes away.
 * Changing the `session` prop re-subscribes every hook below to the new session. Providers nest:
 * a hook reads the nearest one.
 * @example
 * ```ts
 * const session = createSession({ slices: [Messages] });
 * createRoot(el).render(createElement(SessionProvider, { session }, createElement(App)));
 * ```
 */
export function SessionProvider(props: SessionProviderProps): ReactNode {
  return createElement(SessionContext.Provider, { value: props.session }, props.children);
}

/** @internal The provided session, or {@link SessionNotProvidedError} naming `hook`. */
export function useProvidedSession(hook: string): CoreSession {
  const session = useContext(SessionContext);
  if (session === undefined) throw new SessionNotProvidedError(hook);
  return session;
}

/**
 * The session of the nearest {@link SessionProvider}, typed as `TSession` (default: the session
 * `createSession` returns).
 *
 * @remarks Never re-renders by itself: the session object does not change when its state does.
 * Read state with {@link useSlice}, {@link useLatest}, {@link useComputed} or {@link useSelector},
 * which re-render on changes. `TSession` is an assertion about what the provider was given
 * (as react-redux's `useStore<RootState>()`).
 * @throws {@link SessionNotProvidedError} outside a provider.
 * @example
 * ```ts
 * const session = useSession<typeof appSession>();
 * useEffect(() => session.run(myEpic).stop, [session]);
 * ```
 */
export function useSession<TSession extends CoreSession = Session>(): TSession {
  return useProvidedSession('useSession()') as TSession;
}

/**
 * {@link useSession} typed for one session type, declared once (as Redux Toolkit's
 * `useStore.withTypes<AppStore>()`): components call the returned hook without a type argument.
 *
 * @typeParam TSession - The session's type, usually `typeof session`.
 * @returns `useSession`, with its type fixed (no new function: nothing happens at run time).
 * @example
 * ```ts
 * export const useAppSession = useSession.withTypes<typeof session>();
 * const session = useAppSession(); // typed: session.dispatch takes only the session's events
 * ```
 */
useSession.withTypes = function withTypes<TSession extends CoreSession>(): () => TSession {
  return useSession as () => TSession;
};

/** @internal The nearest provider's session, else `bound` (the hooks of `createSessionHooks`). */
export function useSessionOr(bound: CoreSession): CoreSession {
  return useContext(SessionContext) ?? bound;
}
