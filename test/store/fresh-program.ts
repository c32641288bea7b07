// Shared by the tests of a store's layers (define-middleware, durable-journals): each test loads
// rxslice afresh (`vi.resetModules`), as a program that has linked nothing yet, and builds the
// same small notes app on that copy.
import { beforeEach, vi } from 'vitest';
import { z } from 'zod';

/** The rxslice module as a test loads it. */
export type Rx = typeof import('../../src/index');

/** Loads rxslice afresh before each test of the calling file; read `.current` inside a test. */
export function freshRxslice(): { current: Rx } {
  const loaded = {} as { current: Rx };
  beforeEach(async () => {
    vi.resetModules();
    loaded.current = await import('../../src/index');
  });
  return loaded;
}

/** A log slice of note texts fed by `notes/noted`, plus `notes/pinged`, which no reducer handles; made on `rx`. */
export function notesApp({ defineEvent, defineSlice, append }: Rx) {
  const Noted = defineEvent('notes/noted', z.object({ text: z.string() }));
  const Pinged = defineEvent('notes/pinged', z.object({}));
  const Notes = defineSlice('notes', { policy: 'log', reducers: ({ on }) => [on(Noted, (_v, e) => append(e.payload.text))] });
  return { Noted, Pinged, Notes };
}
