import { describe, expect, it } from 'vitest';
import {
  availableTransitions,
  canTransition,
  createMachineActor,
  defineMachine,
  effect,
  initialTransition,
  InvalidTransitionError,
  MachineNotRunningError,
  matches,
  transition,
  type MachineSnapshot,
} from '../../src/machines/index.js';

const Door = defineMachine('door', {
  context: { opens: 0 },
  invalidTransitions: 'report',
  states: {
    closed: {
      on: {
        'door/opened': { target: 'open', guard: ({ context }) => context.opens < 2 },
        'door/locked': 'locked',
      },
    },
    open: {
      entry: [effect('door/chime', ({ context }: { context: { opens: number } }) => ({ n: context.opens })), ({ context }) => ({ kind: 'assign', update: () => ({ opens: context.opens + 1 }) })],
      on: { 'door/closed': 'closed' },
    },
    locked: { type: 'final' },
  },
});

describe('createMachineActor', () => {
  it('emits the snapshot synchronously on start and after each changing send', () => {
    const actor = createMachineActor(Door);
    const seen: string[] = [];
    actor.start();
    actor.snapshot$.subscribe((s) => seen.push(s.configuration.join()));
    actor.send('door/opened');
    actor.send({ type: 'door/closed' });
    expect(seen).toEqual(['closed', 'open', 'closed']);
    expect(actor.snapshot().context).toEqual({ opens: 1 });
    expect(actor.matches('closed')).toBe(true);
    actor.dispose();
  });

  it('collects effects, reports invalid events on errors$ (policy report) without changing state', () => {
    const actor = createMachineActor(Door).start();
    const effects: unknown[] = [];
    const errors: unknown[] = [];
    actor.effects$.subscribe((e) => effects.push(e));
    actor.errors$.subscribe((e) => errors.push(e));
    actor.send('door/closed'); // not enabled in 'closed'
    actor.send('door/opened');
    expect(errors).toHaveLength(1);
    expect(errors[0]).toBeInstanceOf(InvalidTransitionError);
    expect((errors[0] as InvalidTransitionError).configuration).toEqual(['closed']);
    expect(effects).toEqual([{ type: 'door/chime', payload: { n: 0 } }]);
    actor.dispose();
  });

  it('queues a send made from a subscriber and runs it after the current one (FIFO)', () => {
    const actor = createMachineActor(Door).start();
    const seen: string[] = [];
    actor.snapshot$.subscribe((s) => {
      seen.push(s.configuration.join());
      if (s.configuration[0] === 'open') actor.send('door/closed');
    });
    actor.send('door/opened');
    expect(seen).toEqual(['closed', 'open', 'closed']);
  });

  it('throws before start and after stop; stop completes the streams', () => {
    const actor = createMachineActor(Door);
    expect(() => actor.send('door/opened')).toThrow(MachineNotRunningError);
    actor.start();
    let completed = false;
    actor.snapshot$.subscribe({ complete: () => (completed = true) });
    actor.stop();
    expect(completed).toBe(true);
    expect(() => actor.send('door/opened')).toThrow(/stopped/);
    expect(actor.snapshot().configuration).toEqual(['closed']);
  });
});

describe('snapshots are plain JSON', () => {
  it('round-trips through JSON and continues in a new actor', () => {
    const a = createMachineActor(Door).start();
    a.send('door/opened');
    a.send('door/closed');
    const json = JSON.stringify(a.snapshot());
    a.dispose();
    const restored = JSON.parse(json) as MachineSnapshot<{ opens: number }, (typeof Door.stateIds)[number]>;
    expect(restored).toEqual(a.snapshot());
    const b = createMachineActor(Door, { snapshot: restored }).start();
    b.send('door/opened');
    b.send('door/closed');
    const errors: unknown[] = [];
    b.errors$.subscribe((e) => errors.push(e));
    b.send('door/opened'); // guard: only two openings
    expect(b.snapshot()).toMatchObject({ configuration: ['closed'], context: { opens: 2 } });
    expect(errors).toHaveLength(1);
    b.send('door/locked');
    expect(b.snapshot().done).toBe(true);
  });

  it('the pure core gives the same result as the actor', () => {
    let s = initialTransition(Door).snapshot;
    s = transition(Door, s, 'door/opened').snapshot;
    expect(JSON.parse(JSON.stringify(s))).toEqual(s);
    expect(s).toMatchObject({ machine: 'door', configuration: ['open'], basicConfiguration: ['open'], historyValue: {}, delayed: [], done: false });
  });

  it('rejects a snapshot of another machine', () => {
    const other = defineMachine('other', { states: { x: {} } });
    expect(() => transition(Door, initialTransition(other).snapshot as never, 'door/opened')).toThrow(/belongs to machine "other"/);
  });
});

describe('introspection', () => {
  const s = initialTransition(Door).snapshot;
  it('matches', () => {
    expect(matches(s, 'closed')).toBe(true);
    expect(matches(s, 'open')).toBe(false);
  });
  it('canTransition evaluates guards against the snapshot context', () => {
    expect(canTransition(Door, s, 'door/opened')).toBe(true);
    expect(canTransition(Door, { ...s, context: { opens: 2 } }, 'door/opened')).toBe(false);
    expect(canTransition(Door, s, 'door/closed')).toBe(false);
  });
  it('availableTransitions lists the enabled events with their targets', () => {
    expect(availableTransitions(Door, s)).toEqual([
      { event: 'door/opened', enabled: true, requiresEvent: false, transitions: [{ source: 'closed', targets: ['open'], requiresEvent: false }] },
      { event: 'door/locked', enabled: true, requiresEvent: false, transitions: [{ source: 'closed', targets: ['locked'], requiresEvent: false }] },
    ]);
  });
});
