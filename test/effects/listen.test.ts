import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createSession, defineEvent, defineSlice, listen, SubscriberError, type CommittedEnvelope, type RxSliceError } from '../../src/index';
import { SESSION_INTERNALS } from '../../src/session/internals';

const Ping = defineEvent('listen/ping', z.object({ id: z.number() }));
const Pong = defineEvent('listen/pong', z.object({ id: z.number() }));
const Other = defineEvent('listen/other');
const tally = (t: { count: number; last: number } | undefined, id: number) => ({ count: (t?.count ?? 0) + 1, last: id });
const Pings = defineSlice('pings', {
  policy: 'state',
  initial: [{ count: 0, last: -1 }],
  reducers: ({ onLatest }) => [onLatest(Ping, (t, e) => tally(t, e.payload.id))],
});
const Pongs = defineSlice('pongs', {
  policy: 'state',
  initial: [{ count: 0, last: -1 }],
  reducers: ({ onLatest }) => [onLatest(Pong, (t, e) => tally(t, e.payload.id))],
});

describe('listen', () => {
  it('answers each committed event of its type with a follow-up, queued after the commit, with causation meta', () => {
    const s = createSession({ slices: [Pings, Pongs], events: [Other] });
    const seen: string[] = [];
    listen(s, Ping, (committed, api) => {
      // The handler runs after the commit: the state it reads already holds the ping.
      seen.push(`ping ${committed.event.payload.id} read ${api.read(Pings)[0]?.last}`);
      api.dispatch(Pong({ id: committed.event.payload.id }));
    });
    const log: CommittedEnvelope[] = [];
    s.committed$.subscribe((c) => log.push(c));
    s.dispatch(Ping({ id: 7 }), { correlationId: 'c-1' });
    s.dispatch(Other());
    expect(seen).toEqual(['ping 7 read 7']);
    expect(log.map((c) => [c.seq, c.event.type, c.meta])).toEqual([
      [1, 'listen/ping', { correlationId: 'c-1' }],
      [2, 'listen/pong', { source: 'listener', causationId: 1, correlationId: 'c-1' }],
      [3, 'listen/other', {}],
    ]);
    expect(s.slice(Pongs).latest()).toEqual({ count: 1, last: 7 });
  });

  it('builds no committed envelope for events nobody listens to, and stops when removed', () => {
    const s = createSession({ slices: [Pings, Pongs] });
    const calls: number[] = [];
    const stop = listen(s, [Ping, Pong], (c) => calls.push(c.seq), { name: 'tap' });
    s.dispatch(Ping({ id: 1 }));
    s.dispatch(Pong({ id: 2 }));
    stop();
    stop();
    s.dispatch(Ping({ id: 3 }));
    expect(calls).toEqual([1, 2]);
    // With only a typed listener on Ping, the commits of other types make no envelope: a probe
    // listener that reads only effects sees none of them.
    const probe: CommittedEnvelope[] = [];
    const internals = s[SESSION_INTERNALS];
    internals.onCommitted({ effectsOnly: true, onCommitted: (c) => probe.push(c) });
    listen(s, Ping, () => undefined);
    s.dispatch(Pong({ id: 4 }));
    expect(probe).toEqual([]);
    s.dispatch(Ping({ id: 5 }));
    expect(probe.map((c) => c.event.type)).toEqual(['listen/ping']);
  });

  it('reports a throwing handler on errors$ and keeps the commit and the other listeners', () => {
    const s = createSession({ slices: [Pings, Pongs] });
    const errors: RxSliceError[] = [];
    s.errors$.subscribe((e) => errors.push(e));
    const told: string[] = [];
    listen(s, Ping, function broken() {
      throw new Error('boom');
    });
    listen(s, Ping, () => told.push('second'));
    s.dispatch(Ping({ id: 1 }));
    expect(s.slice(Pings).latest()).toEqual({ count: 1, last: 1 });
    expect(told).toEqual(['second']);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toBeInstanceOf(SubscriberError);
    expect((errors[0] as SubscriberError).source).toBe('listener "broken"');
  });

  it('makes the listened types known, tells a batch once it publishes, and refuses a bad handler or a disposed session', () => {
    const Unknown = defineEvent('listen/not-declared');
    const s = createSession({ slices: [Pings] });
    const told: number[] = [];
    listen(s, Unknown, (c) => told.push(c.seq));
    s.batch(() => {
      // Not in the session's type (it declares only its slices' events); known at run time through listen.
      s.dispatch(Unknown() as never);
      expect(told).toEqual([]);
    });
    expect(told).toEqual([1]);
    expect(() => listen(s, Ping, 5 as never)).toThrow(/listen expects a handler function/);
    const called: number[] = [];
    expect(() => listen(s, [Ping, 'listen/pong' as never], () => called.push(1))).toThrow(
      /listen expects event creators \(from defineEvent\), got the string "listen\/pong"/,
    );
    // Nothing was registered by the refused call.
    s.dispatch(Ping({ id: 9 }));
    expect(called).toEqual([]);
    s.dispose();
    expect(() => listen(s, Ping, () => undefined)).toThrow(/disposed/);
  });

  it('gives a follow-up the time of the drain it joins (one clock read per drain); a top-level dispatch reads the clock', () => {
    let t = 1000;
    // A clock that moves on every read: a second read within one drain would show.
    const scheduler = { now: () => (t += 5), schedule: () => ({ unsubscribe() {} }) } as never;
    const s = createSession({ slices: [Pings, Pongs], scheduler });
    listen(s, Ping, (c, api) => api.dispatch(Pong({ id: c.event.payload.id })));
    const log: CommittedEnvelope[] = [];
    s.committed$.subscribe((c) => log.push(c));
    s.dispatch(Ping({ id: 1 }));
    s.dispatch(Ping({ id: 2 }));
    expect(log.map((c) => [c.event.type, c.at])).toEqual([
      ['listen/ping', 1005],
      ['listen/pong', 1005],
      ['listen/ping', 1010],
      ['listen/pong', 1010],
    ]);
  });
});
