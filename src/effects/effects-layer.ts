import type { EffectsLayer } from '../session/feature-layers';
import { effectRuntime } from './effect-runtime';
import { runEffect } from './handle-effect';
import { installEffects } from './install-effects';

/** @internal What `defineEffect` links for the session's effect methods (see `EFFECTS_LAYER`). */
export const effectsLayer: EffectsLayer = {
  install: installEffects,
  runEffect,
  route: (session, committed) => effectRuntime(session).onCommitted(committed),
};
