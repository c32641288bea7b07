import { RxSliceError } from '../internal/errors';

/**
 * Thrown by the `rxslice/angular` injectors when no session was provided to the injector they
 * run in.
 *
 * @remarks Code `SESSION_NOT_PROVIDED` (the same code as `rxslice/react`'s error of that name).
 * @example
 * ```ts
 * TestBed.runInInjectionContext(() => injectSlice(Messages)); // throws SessionNotProvidedError: injectSlice() needs a session ...
 * ```
 */
export class SessionNotProvidedError extends RxSliceError {
  override readonly name = 'SessionNotProvidedError';
  constructor(readonly injector: string) {
    super(
      'SESSION_NOT_PROVIDED',
      `${injector} needs a session, but none was provided to this injector. Add provideSession(session) to the providers (bootstrapApplication, a route, a component or TestBed.configureTestingModule).`,
    );
  }
}
