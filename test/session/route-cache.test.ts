import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { append, createSession, defineEvent, defineSlice, listen, UnknownEventError } from '../../src/index';

// The dispatch path answers the event type of the previous dispatch from a one-entry cache
// (KnownEvents.has, SessionRegistry.routesOf): these pin that the cache never answers stale.

const Ping = defineEvent('test/ping', z.object({ n: z.number() }));
const Pong = defineEvent('test/pong', z.object({ n: z.number() }));
const Other = defineEvent('test/other');
const Log = defineSlice('log', {
  policy: 'log',
  reducers: ({ on }) => [on(Pong, (_view, e) => append(`pong ${e.payload.n}`))],
});

describe('route cache', () => {
  it('a reducer registered for a type already dispatched (with no route then) runs on the next dispatch', () => {
    const session = createSession({ slices: [Log], events: [Ping] });
    session.dispatch(Ping({ n: 1 })); // known, no route: the cache holds "no routes" for test/ping
    session.slice(Log).register(Ping, (_view, e) => append(`ping ${e.payload.n}`));
    session.dispatch(Ping({ n: 2 }));
    expect(session.slice(Log).all()).toEqual(['ping 2']);
  });

  it('a second reducer of a cached type, and its removal, apply from the next dispatch', () => {
    const session = createSession({ slices: [Log] });
    session.dispatch(Pong({ n: 1 }));
    const remove = session.slice(Log).register(Pong, (_view, e) => append(`again ${e.payload.n}`));
    session.dispatch(Pong({ n: 2 }));
    remove();
    session.dispatch(Pong({ n: 3 }));
    expect(session.slice(Log).all()).toEqual(['pong 1', 'pong 2', 'again 2', 'pong 3']);
  });

  it('a reducer registered for the older of the two cached types runs on its next dispatch', () => {
    const session = createSession({ slices: [Log], events: [Ping] });
    session.dispatch(Ping({ n: 1 })); // cached: test/ping → no routes
    session.dispatch(Pong({ n: 2 })); // cached: test/pong → its list; test/ping is the older entry
    session.slice(Log).register(Ping, (_view, e) => append(`ping ${e.payload.n}`));
    session.dispatch(Ping({ n: 3 }) as never);
    expect(session.slice(Log).all()).toEqual(['pong 2', 'ping 3']);
  });

  it('a listener added for a type already committed unheard is told of its next commit', () => {
    const session = createSession({ slices: [Log], events: [Ping, Other] });
    listen(session, Other, () => undefined); // some type is listened to: the others are asked about
    session.dispatch(Ping({ n: 1 }));
    session.dispatch(Pong({ n: 2 })); // neither type is listened to: both answers are cached
    const heard: number[] = [];
    listen(session, [Ping, Pong], (committed) => heard.push(committed.seq));
    session.dispatch(Ping({ n: 3 }));
    session.dispatch(Pong({ n: 4 }));
    expect(heard).toEqual([3, 4]);
  });

  it('a type refused as unknown is accepted once a reducer declares it', () => {
    const session = createSession({ slices: [Log] });
    // (Untyped: the session's options declare no test/ping, only the reducer registered below does.)
    expect(() => session.dispatch(Ping({ n: 1 }) as never)).toThrow(UnknownEventError); // the refusal is remembered
    session.dispatch(Pong({ n: 2 }));
    session.slice(Log).register(Ping, (_view, e) => append(`ping ${e.payload.n}`));
    session.dispatch(Ping({ n: 3 }) as never);
    expect(session.slice(Log).all()).toEqual(['pong 2', 'ping 3']);
  });

  it('alternating types each reach their own reducers', () => {
    const session = createSession({ slices: [Log], events: [Ping] });
    session.slice(Log).register(Ping, (_view, e) => append(`ping ${e.payload.n}`));
    for (let n = 0; n < 4; n++) session.dispatch(n % 2 === 0 ? Ping({ n }) : Pong({ n }));
    expect(session.slice(Log).all()).toEqual(['ping 0', 'pong 1', 'ping 2', 'pong 3']);
  });
});
