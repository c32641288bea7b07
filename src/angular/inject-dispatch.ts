import type { Session as CoreSession } from '../session/session-types';
import type { Session } from '../store/create-session';
import { inContext, providedSession, type InjectOptions } from './provide-session';

/**
 * The provided session's `dispatch`, typed as `TSession['dispatch']` (a session whose dispatch
 * accepts only its declared events gives a function that does too: `injectDispatch<typeof session>()`).
 *
 * @remarks The session's own function (no `this` needed). Dispatching is synchronous: when it
 * returns, every signal from this session that changed holds its new value. It throws what
 * `session.dispatch` throws, with nothing changed.
 * @throws {@link SessionNotProvidedError}; NG0203 outside an injection context.
 * @example
 * ```ts
 * class Send {
 *   private readonly dispatch = injectDispatch();
 *   send(text: string) { this.dispatch(MessageAdded({ role: 'user', text })); }
 * }
 * ```
 */
export function injectDispatch<TSession extends CoreSession = Session>(options?: InjectOptions): TSession['dispatch'] {
  return inContext(injectDispatch, options, () => providedSession('injectDispatch()').dispatch as TSession['dispatch']);
}
