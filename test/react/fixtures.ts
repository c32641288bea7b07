/// <reference lib="dom" />
import type { Observable } from 'rxjs';
import { vi } from 'vitest';
import { z } from 'zod';
import { append, createSession, defineComputed, defineComputedFamily, defineEvent, defineMachine, defineSlice } from '../../src/index';

/** Shared by the React, Angular, Vue and Svelte binding tests: two independent slices, a computed one and a machine. */
export const MessageAdded = defineEvent('chat/messageAdded', z.object({ role: z.enum(['user', 'assistant']), text: z.string() }));
export const TokensUsed = defineEvent('chat/tokensUsed', z.object({ input: z.number(), output: z.number() }));
export const DoorOpened = defineEvent('door/opened', z.object({}));
export const DoorClosed = defineEvent('door/closed', z.object({}));

export const Messages = defineSlice('messages', {
  policy: 'log',
  schema: z.object({ role: z.string(), text: z.string() }),
  reducers: ({ on }) => [on(MessageAdded, (_view, e) => append(e.payload))],
});
export const Usage = defineSlice('usage', {
  policy: 'state',
  initial: [{ input: 0, output: 0 }],
  reducers: ({ onLatest }) => [onLatest(TokensUsed, (u, e) => ({ input: (u?.input ?? 0) + e.payload.input, output: (u?.output ?? 0) + e.payload.output }))],
});
/** Not in the session: reading it must fail with SliceNotRegisteredError. */
export const Stranger = defineSlice('stranger', { policy: 'state', initial: [1] });

/** Rounded to hundreds: many token events leave it equal (and must not re-render its readers). */
export const TotalHundreds = defineComputed('totalHundreds', [Usage], (u) => Math.floor(((u[0]?.input ?? 0) + (u[0]?.output ?? 0)) / 100));

/** The number of messages of one role: a computed family keyed by the role. */
export const MessagesBy = defineComputedFamily('messagesBy', [Messages], (role: string) => (m) => m.filter((x) => x.role === role).length);

export const Door = defineMachine('door', {
  initial: 'closed',
  states: {
    closed: { on: { 'door/opened': 'open' } },
    open: { on: { 'door/closed': 'closed' } },
  },
});

export function makeSession() {
  const session = createSession({ slices: [Messages, Usage], events: [DoorOpened, DoorClosed] });
  session.install(Door);
  return session;
}

/** Counts the live and total subscriptions of an observable (teardown included). */
export function countSubscriptions(observable: Observable<unknown>): { live: number; total: number } {
  const counter = { live: 0, total: 0 };
  const subscribe = observable.subscribe.bind(observable) as (...args: unknown[]) => { add(teardown: () => void): void };
  vi.spyOn(observable, 'subscribe').mockImplementation(((...args: unknown[]) => {
    counter.live++;
    counter.total++;
    const subscription = subscribe(...args);
    subscription.add(() => counter.live--);
    return subscription;
  }) as never);
  return counter;
}
