import { RxSliceError } from '../internal/errors';

/**
 * Thrown by every `rxslice/react` hook rendered outside a {@link SessionProvider}: there is no
 * session to read from.
 *
 * @remarks Code `SESSION_NOT_PROVIDED`. Thrown during render, so the nearest error boundary
 * catches it.
 * @example
 * ```ts
 * renderToString(createElement(Counter)); // throws SessionNotProvidedError: useSlice(...) needs a session. Wrap the tree in <SessionProvider session={session}>.
 * ```
 */
export class SessionNotProvidedError extends RxSliceError {
  override readonly name = 'SessionNotProvidedError';
  constructor(
    /** The hook that needed a session, e.g. `useSlice(...)`. */
    readonly hook: string,
  ) {
    super(
      'SESSION_NOT_PROVIDED',
      `${hook} needs a session, but no <SessionProvider> is above this component. Wrap the tree in <SessionProvider session={session}> (createSession from 'rxslice').`,
    );
  }
}
