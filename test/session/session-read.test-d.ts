import { useSyncExternalStore } from 'react';
import { describe, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import { append, createSession, defineEvent, defineSlice, type SessionItems } from '../../src/index';

const Added = defineEvent('read-types/added', z.object({ text: z.string() }));
const Notes = defineSlice('notes', { policy: 'log', schema: z.object({ text: z.string() }), reducers: ({ on }) => [on(Added, (_v, e) => append(e.payload))] });

describe('getSnapshot and subscribe types', () => {
  it('getSnapshot returns read-only arrays by slice name; subscribe takes () => void and returns the unsubscribe', () => {
    const session = createSession({ slices: [Notes] });
    expectTypeOf(session.getSnapshot()).toEqualTypeOf<SessionItems>();
    expectTypeOf(session.getSnapshot()['notes']).toEqualTypeOf<readonly unknown[] | undefined>();
    expectTypeOf(session.subscribe).parameter(0).toEqualTypeOf<() => void>();
    expectTypeOf(session.subscribe(() => undefined)).toEqualTypeOf<() => void>();
    // @ts-expect-error the snapshot is read-only
    session.getSnapshot()['notes'] = [];
    // @ts-expect-error a listener takes no state argument to rely on
    session.subscribe((state: string) => state);
    // Fits React's useSyncExternalStore as is.
    expectTypeOf(useSyncExternalStore(session.subscribe, session.getSnapshot)).toEqualTypeOf<SessionItems>();
  });
});
