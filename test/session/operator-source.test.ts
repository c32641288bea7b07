import { filter, map, merge, take, type OperatorFunction } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { append, createSession, defineEvent, defineSlice, type Envelope } from '../../src/index';

// The operator middleware's source is multicast, as a Subject is (src/session/operator-pipeline.ts, EnvelopeSource).

const Noted = defineEvent('notes/noted', z.object({ text: z.string() }));
const Notes = defineSlice('notes', { policy: 'log', reducers: ({ on }) => [on(Noted, (_view, e) => append(e.payload.text))] });
const noted = (env: Envelope, text: string): Envelope => ({ ...env, event: { ...env.event, payload: { text } } });

describe('operator middleware source', () => {
  it('an operator that subscribes twice to its source gets every envelope on both subscriptions', () => {
    const split: OperatorFunction<Envelope, Envelope> = (source) =>
      merge(
        source.pipe(filter((env) => (env.event.payload as { text: string }).text.startsWith('a'))),
        source.pipe(
          filter((env) => !(env.event.payload as { text: string }).text.startsWith('a')),
          map((env) => noted(env, `other: ${(env.event.payload as { text: string }).text}`)),
        ),
      );
    const session = createSession({ slices: [Notes], middleware: { operators: [split] } });
    for (const text of ['apple', 'bean', 'avocado']) session.dispatch(Noted({ text }));
    expect(session.slice(Notes).all()).toEqual(['apple', 'other: bean', 'avocado']);
  });

  it('a subscription that ends while an envelope is fed (take(1)) leaves the other subscription of the same source every envelope', () => {
    const firstTwice: OperatorFunction<Envelope, Envelope> = (source) =>
      merge(source.pipe(take(1), map((env) => noted(env, 'first'))), source);
    const session = createSession({ slices: [Notes], middleware: { operators: [firstTwice] } });
    session.dispatch(Noted({ text: 'one' }));
    session.dispatch(Noted({ text: 'two' }));
    // The first envelope reaches the reducers twice (once per subscription, as with a Subject); the second once.
    expect(session.slice(Notes).all()).toEqual(['first', 'one', 'two']);
  });
});
