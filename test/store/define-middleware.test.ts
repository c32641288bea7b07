import { filter } from 'rxjs';
import { describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { freshRxslice, notesApp } from './fresh-program';

/**
 * Event and operator middleware on a store: their runtime is a layer that `defineMiddleware` (or
 * `validationMiddleware`, or `createSession`) links into the program. Each test loads rxslice
 * afresh (`vi.resetModules`), as a program that has linked nothing yet.
 */
const loaded = freshRxslice();


const dropSecrets = filter((env: { event: { payload: unknown } }) => (env.event.payload as { text: string }).text !== 'secret');

describe('defineMiddleware (the event and operator middleware of a store)', () => {
  it('a store refuses events or operators in a program that linked no runtime, naming defineMiddleware; reducer middleware needs none', () => {
    const { Noted, Notes } = notesApp(loaded.current);
    expect(() => loaded.current.createStore({ slices: [Notes], middleware: { operators: [dropSecrets as never] } })).toThrow(/defineMiddleware/);
    const store = loaded.current.createStore({ slices: [Notes], middleware: { reducers: [(_ctx, next) => next()] } });
    expect(() => store.use({ events: [(env, next) => next(env)] })).toThrow(TypeError);
    const seen: string[] = [];
    // Nothing of a refused call is added, its reducer middleware included.
    expect(() => store.use(() => { throw new Error('added'); }, { operators: [dropSecrets as never] })).toThrow(/defineMiddleware/);
    store.use((ctx, next) => {
      seen.push(ctx.event.type);
      return next();
    });
    store.dispatch(Noted({ text: 'a' }));
    expect(store.slice(Notes).all()).toEqual(['a']);
    expect(seen).toEqual(['notes/noted']);
    // The refused use added nothing: a later dispatch runs no pipeline.
    expect(store.dispatch(Noted({ text: 'secret' })).seq).toBe(2);
  });

  it('returns the set as given and links the runtime: createStore({ middleware }) and store.use take events and operators', () => {
    const { Noted, Notes } = notesApp(loaded.current);
    const set = { operators: [dropSecrets as never] };
    expect(loaded.current.defineMiddleware(set)).toBe(set);
    const store = loaded.current.createStore({ slices: [Notes], middleware: set });
    const logged: string[] = [];
    // A plain set is taken once the runtime is linked (program-wide, like defineSaga's).
    const stop = store.use({ events: [(env, next) => (logged.push(env.event.type), next(env))] });
    store.dispatch(Noted({ text: 'secret' }));
    store.dispatch(Noted({ text: 'b' }));
    stop();
    store.dispatch(Noted({ text: 'c' }));
    expect(store.slice(Notes).all()).toEqual(['b', 'c']);
    expect(logged).toEqual(['notes/noted', 'notes/noted']);
  });

  it('validationMiddleware links it too, and createSession does for its stores and the stores made after it', () => {
    const { Noted, Notes } = notesApp(loaded.current);
    const store = loaded.current.createStore({ slices: [Notes] });
    store.use(loaded.current.validationMiddleware([[Noted, z.object({ text: z.string().min(2) })]]));
    expect(() => store.dispatch(Noted({ text: 'x' }))).toThrow(loaded.current.InvalidEventError);
    vi.resetModules();
    return import('../../src/index').then((fresh) => {
      const again = notesApp(fresh);
      fresh.createSession({ slices: [again.Notes] });
      const later = fresh.createStore({ slices: [again.Notes], middleware: { operators: [dropSecrets as never] } });
      later.dispatch(again.Noted({ text: 'secret' }));
      expect(later.slice(again.Notes).all()).toEqual([]);
    });
  });
});
