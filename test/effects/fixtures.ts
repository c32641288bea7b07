import { filter, map, type Observable } from 'rxjs';
import type { TestScheduler } from 'rxjs/testing';
import { z } from 'zod';
import { createSession, defineEvent, defineSlice, none, withEffects, type CommittedEnvelope, type Event, type Session } from '../../src/index';
import { installEffects, type InstallEffectsOptions, type SessionEffects } from '../../src/effects/install-effects';

/** Asks the `requests` slice's reducer to return `withEffects(none(), [effect])`: a reducer producing any effect. */
export const EffectRequested = defineEvent(
  'test/effectRequested',
  z.object({ effect: z.object({ type: z.string(), payload: z.unknown() }) }),
);
export const Pinged = defineEvent('test/pinged', z.object({ n: z.number() }));
export const Ponged = defineEvent('test/ponged', z.object({ n: z.number() }));
export const Saved = defineEvent('test/saved', z.object({ id: z.number(), result: z.unknown() }));
export const SaveCompensated = defineEvent('test/saveCompensated', z.object({ id: z.number() }));

export const Requests = defineSlice('requests', {
  policy: 'log',
  reducers: ({ on }) => [on(EffectRequested, (_view, e) => withEffects(none(), [e.payload.effect as Event]))],
});

/** Requests an effect through the reducer path. */
export const request = (effect: Event) => EffectRequested({ effect: effect as { type: string; payload: unknown } });

/** A session with the `requests` slice, the fixture events' schemas, and the effect layer installed. */
export function effectSession<TDeps = unknown>(
  scheduler?: TestScheduler,
  options: InstallEffectsOptions<TDeps> = {},
): { session: Session; fx: SessionEffects<TDeps> } {
  const events = [Pinged, Ponged, Saved, SaveCompensated];
  const session = createSession(scheduler === undefined ? { slices: [Requests], events } : { slices: [Requests], events, scheduler });
  return { session, fx: installEffects(session, options) };
}

/** Short labels of `rxslice.effect.*` events: `started 1`, `retrying 2 in 10`, `failed after 3`, ... */
export function lifecycleLabel(c: CommittedEnvelope): string {
  const p = c.event.payload as Record<string, unknown>;
  const kind = c.event.type.slice('rxslice.effect.'.length);
  switch (kind) {
    case 'started':
    case 'succeeded':
    case 'cancelled':
      return `${kind} ${String(p['effectType'])} ${String(p['attempt'])}`;
    case 'retrying':
      return `retrying ${String(p['effectType'])} ${String(p['attempt'])} in ${String(p['delayMs'])}`;
    case 'failed':
      return p['kind'] === 'epic'
        ? `epic failed ${String(p['epic'])} ${String(p['consecutiveFailures'])}${p['stopped'] === true ? ' stopped' : ''}`
        : `failed ${String(p['effectType'])} after ${String(p['attempts'])}`;
    case 'compensated':
      return `compensated ${String(p['effectType'])} with ${String(p['compensation'])}`;
    case 'dropped':
      return `dropped ${String(p['effectType'])}`;
    default:
      return kind;
  }
}

/** The lifecycle events of a session as labels, for `expectObservable`. */
export function lifecycle$(session: Session): Observable<string> {
  return session.committed$.pipe(
    filter((c) => c.event.type.startsWith('rxslice.effect.')),
    map(lifecycleLabel),
  );
}

/** The user events (not `rxslice.*`, not requests) committed in a session, as `type payload-json`. */
export function userEvents$(session: Session): Observable<string> {
  return session.committed$.pipe(
    filter((c) => !c.event.type.startsWith('rxslice.') && c.event.type !== EffectRequested.type),
    map((c) => `${c.event.type} ${JSON.stringify(c.event.payload)}`),
  );
}
