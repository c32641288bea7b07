import type { Observable } from 'rxjs';
import type { CoreStore } from '../session/session-types';
import { SessionDisposedError } from '../session/errors';
import { SESSION_INTERNALS } from '../session/internals';
import type { AnyEffectDef, Effect, InferEffect, InferEffectResult } from './define-effect';
import type { EffectHandler } from './effect-handler';
import { effectRuntime, type EffectRegistration } from './effect-runtime';
import { runEpic, type Epic, type EpicHandle, type EpicOptions } from './epic';
import { effects$ } from './handle-effect';
import { quote } from '../internal/quote';

/** Options of {@link installEffects} (the `epics` and `dependencies` of `createSession`). */
export interface InstallEffectsOptions<TDeps> {
  /** Epics started at once, in order. */
  readonly epics?: readonly Epic<TDeps>[];
  /** Passed to every epic (third argument) and every effect handler (`ctx.deps`). */
  readonly dependencies?: TDeps;
}

/** The effect methods of a session: `session.run`, `session.handle`, `session.effects$`. */
export interface SessionEffects<TDeps = unknown> {
  /** Runs an epic with the session's dependencies (unless `options.deps` is given). See {@link runEpic}. */
  run(epic: Epic<TDeps>, options?: EpicOptions<TDeps>): EpicHandle;
  /** Registers an effect handler. See {@link handleEffect}. */
  handle<TDef extends AnyEffectDef>(def: TDef, handler: EffectHandler<InferEffect<TDef>, InferEffectResult<TDef>, TDeps>): EffectRegistration;
  /** The effects reducers request, without running them. See {@link effects$}. */
  readonly effects$: Observable<Effect>;
  /** The handles of the epics started by `installEffects`, in order. */
  readonly epics: readonly EpicHandle[];
}

/**
 * Attaches the effect layer to a session: creates its effect runtime (so, from now on, an
 * effect with no handler is reported as `MissingEffectHandlerError`), sets the dependencies
 * handlers receive, starts `epics`, and returns the methods a session exposes for effects.
 *
 * @remarks The session layer does not import effects; `createSession({ epics, dependencies })`
 * delegates here. Call it once per session, before dispatching events whose effects should run.
 * Everything it starts is torn down by `session.dispose()`.
 * @throws {@link SessionDisposedError} after `dispose()`.
 * @example
 * ```ts
 * const session = createSession({ slices: [Orders], scheduler });
 * const fx = installEffects(session, { epics: [audit], dependencies: { api } });
 * fx.handle(Charge, (effect, { deps, signal }) => deps.api.charge(effect.payload, { signal }));
 * ```
 */
export function installEffects<TDeps = unknown>(session: CoreStore, options: InstallEffectsOptions<TDeps> = {}): SessionEffects<TDeps> {
  if (session[SESSION_INTERNALS].disposed) throw new SessionDisposedError('install effects');
  const runtime = effectRuntime(session);
  if (options.dependencies !== undefined) runtime.deps = options.dependencies;
  const withDeps = (epicOptions: EpicOptions<TDeps> = {}): EpicOptions<TDeps> =>
    epicOptions.deps === undefined && options.dependencies !== undefined ? { ...epicOptions, deps: options.dependencies } : epicOptions;
  const epics = (options.epics ?? []).map((epic) => runEpic(session, epic, withDeps()));
  return {
    run: (epic, epicOptions) => runEpic(session, epic, withDeps(epicOptions)),
    handle: (def, handler) => {
      if (session[SESSION_INTERNALS].disposed) throw new SessionDisposedError(`handle effect ${quote(def.type)}`);
      return runtime.handle(def, handler as EffectHandler<any, any, any>);
    },
    effects$: effects$(session),
    epics,
  };
}
