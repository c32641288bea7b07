import { map, timer, VirtualTimeScheduler } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createSession, defineSaga, RetryPolicy, step, UnknownSagaError, type Session, type Snapshot } from '../../src/index';

/**
 * Crash recovery with memory storage: a run in session A is snapshotted after each of its saga
 * events (a crash at that record boundary), then a new session B restores the snapshot and
 * resumes. The external service keeps what A did before the crash — including the work of the
 * step in flight (recorded started, not yet succeeded) — and deduplicates by idempotency key.
 */

interface Call {
  readonly kind: 'run' | 'compensate';
  readonly step: string;
  readonly key: string;
  /** Saga events recorded before the call. */
  readonly after: number;
}

class World {
  readonly calls: Call[] = [];
  recorded = 0;
  constructor(readonly failAt: string | undefined) {}
  /** The effects applied (first call per idempotency key), in order. */
  applied(): Call[] {
    const seen = new Set<string>();
    return this.calls.filter((c) => !seen.has(c.key) && seen.add(c.key));
  }
}

const Input = z.object({ app: z.string() });

function saga(world: () => World, scheduler: VirtualTimeScheduler) {
  const op = (kind: Call['kind'], name: string, key: string) => {
    const w = world();
    w.calls.push({ kind, step: name, key, after: w.recorded });
    return timer(1, scheduler).pipe(
      map(() => {
        if (kind === 'run' && w.failAt === name) throw new Error(`${name} failed`);
        return `${name}-result`;
      }),
    );
  };
  const s = (name: string) =>
    step(name, { run: (_input, ctx) => op('run', name, ctx.idempotencyKey), compensate: (_r, ctx) => op('compensate', name, ctx.idempotencyKey) });
  return defineSaga('deployment', { input: Input, steps: [s('createResources'), s('configureNetworking'), s('deployApplication')] });
}

interface Trace {
  readonly type: string;
  readonly step?: string;
}

function record(session: Session, world: World, out: Trace[], onEvent?: (n: number) => void): void {
  session.committed$.subscribe((c) => {
    if (!c.event.type.startsWith('rxslice.saga.')) return;
    out.push({ type: c.event.type.slice('rxslice.saga.'.length), ...((c.event.payload as { step?: string }).step === undefined ? {} : { step: (c.event.payload as { step: string }).step }) });
    world.recorded++;
    onEvent?.(world.recorded);
  });
}

/** Runs the saga once in session A, snapshotting after every saga event. */
function firstRun(failAt: string | undefined) {
  const scheduler = new VirtualTimeScheduler();
  const world = new World(failAt);
  const def = saga(() => world, scheduler);
  const session = createSession({ slices: [], scheduler, sagas: [def] });
  const log: Trace[] = [];
  const snapshots: Snapshot[] = [];
  record(session, world, log, (n) => (snapshots[n] = session.snapshot()));
  session.runSaga(def, { app: 'web' }, { sagaId: 'S' }).subscribe({ error: () => undefined });
  scheduler.flush();
  return { world, log, snapshots, events: world.recorded };
}

function check(failAt: string | undefined, crashAfter: number, inFlightDone: boolean): void {
  const a = firstRun(failAt);
  const scheduler = new VirtualTimeScheduler();
  // The world after the crash: what A did before event crashAfter + 1 (with or without the in-flight work).
  const world = new World(failAt);
  world.calls.push(...a.world.calls.filter((c) => c.after < crashAfter || (inFlightDone && c.after === crashAfter)));
  const def = saga(() => world, scheduler);
  const b = createSession({ slices: [], scheduler, sagas: [def] });
  b.restore(a.snapshots[crashAfter] as Snapshot);
  const log: Trace[] = a.log.slice(0, crashAfter);
  world.recorded = crashAfter;
  record(b, world, log);
  const outcomes: string[] = [];
  for (const resumed of b.resumeSagas()) resumed.result$.subscribe({ next: () => outcomes.push('completed'), error: () => outcomes.push('failed') });
  scheduler.flush();
  const label = `fail at ${failAt ?? '(none)'}, crash after event ${crashAfter}, in-flight work ${inFlightDone ? 'done' : 'lost'}`;

  // Every saga ends completed or failed, and leaves the progress slice.
  const last = log.at(-1)?.type;
  expect(last, label).toBe(failAt === undefined ? 'completed' : 'failed');
  expect(b.read('rxslice/sagas'), label).toEqual([]);
  // 0 duplicate step completions, 0 double compensations.
  const count = (type: string) => {
    const m = new Map<string, number>();
    for (const t of log) if (t.type === type) m.set(t.step as string, (m.get(t.step as string) ?? 0) + 1);
    return [...m.values()];
  };
  expect(count('stepSucceeded').every((n) => n === 1), label).toBe(true);
  expect([...count('stepCompensated'), ...count('compensationFailed')].every((n) => n === 1), label).toBe(true);
  // Compensation in reverse order of completion.
  const done = log.filter((t) => t.type === 'stepSucceeded').map((t) => t.step);
  const undone = log.filter((t) => t.type === 'stepCompensated').map((t) => t.step);
  expect(undone, label).toEqual(failAt === undefined ? [] : [...done].reverse());
  // Each step (and compensation) used one idempotency key, whatever ran twice.
  for (const c of world.calls) expect(c.key, label).toBe(c.kind === 'run' ? `S/${c.step}` : `S/${c.step}/compensate`);
  // The external effects, applied once per key: all three on success; on failure, what was created is deleted in reverse.
  const applied = world.applied().map((c) => `${c.kind} ${c.step}`);
  expect(applied, label).toEqual(
    failAt === undefined
      ? ['run createResources', 'run configureNetworking', 'run deployApplication']
      : ['run createResources', 'run configureNetworking', 'run deployApplication', 'compensate configureNetworking', 'compensate createResources'],
  );
  expect(outcomes.length <= 1, label).toBe(true);
}

describe('saga crash recovery (memory storage: snapshot, new session, restore, resumeSagas)', () => {
  it('the first run records the expected log on the success and the failure path', () => {
    expect(firstRun(undefined).log.map((t) => `${t.type} ${t.step ?? ''}`.trim())).toEqual([
      'started',
      'stepStarted createResources',
      'stepSucceeded createResources',
      'stepStarted configureNetworking',
      'stepSucceeded configureNetworking',
      'stepStarted deployApplication',
      'stepSucceeded deployApplication',
      'completed',
    ]);
    expect(firstRun('deployApplication').log.map((t) => `${t.type} ${t.step ?? ''}`.trim())).toEqual([
      'started',
      'stepStarted createResources',
      'stepSucceeded createResources',
      'stepStarted configureNetworking',
      'stepSucceeded configureNetworking',
      'stepStarted deployApplication',
      'stepFailed deployApplication',
      'compensating deployApplication',
      'stepCompensated configureNetworking',
      'stepCompensated createResources',
      'failed deployApplication',
    ]);
  });

  for (const failAt of [undefined, 'deployApplication']) {
    it(`resumes after a crash at every record boundary (${failAt === undefined ? 'success' : 'failure'} path): each step completes once, compensations once and in reverse`, () => {
      const events = firstRun(failAt).events;
      // The last event finishes the saga: a crash after it leaves nothing to resume.
      for (let k = 1; k < events; k++) {
        check(failAt, k, true);
        check(failAt, k, false);
      }
    });
  }

  it('resumes nothing twice in one session, and a finished saga not at all', () => {
    const a = firstRun(undefined);
    const scheduler = new VirtualTimeScheduler();
    const world = new World(undefined);
    const def = saga(() => world, scheduler);
    const b = createSession({ slices: [], scheduler, sagas: [def] });
    b.restore(a.snapshots[3] as Snapshot);
    expect(b.resumeSagas().map((r) => r.sagaId)).toEqual(['S']);
    expect(b.resumeSagas()).toEqual([]);
    scheduler.flush();
    expect(world.applied().map((c) => c.step)).toEqual(['configureNetworking', 'deployApplication']);
    expect(b.resumeSagas()).toEqual([]);
  });

  it('throws UnknownSagaError for an unfinished saga without a definition, and resumes nothing', () => {
    const a = firstRun(undefined);
    const scheduler = new VirtualTimeScheduler();
    const b = createSession({ slices: [], scheduler, sagas: [] });
    b.restore(a.snapshots[2] as Snapshot);
    expect(() => b.resumeSagas()).toThrow(UnknownSagaError);
    expect(b.read('rxslice/sagas')).toHaveLength(1);
    expect(b.lastSeq).toBe(1); // only the restore event
  });

  describe('with a retried step (stepRetrying in the log)', () => {
    /** `configure` fails on its first call in the world (whichever session makes it), then succeeds; retried 2 ms later. */
    function retrySaga(world: () => World, scheduler: VirtualTimeScheduler) {
      const run = (name: string, key: string) => {
        const w = world();
        const first = !w.calls.some((c) => c.step === name);
        w.calls.push({ kind: 'run', step: name, key, after: w.recorded });
        return timer(1, scheduler).pipe(
          map(() => {
            if (name === 'configure' && first) throw new Error('busy');
            return `${name}-result`;
          }),
        );
      };
      return defineSaga('retried', {
        input: Input,
        steps: [
          step('create', { run: (_i, ctx) => run('create', ctx.idempotencyKey) }),
          step('configure', { retry: RetryPolicy.fixed(2, 2), run: (_i, ctx) => run('configure', ctx.idempotencyKey) }),
        ],
      });
    }

    function first() {
      const scheduler = new VirtualTimeScheduler();
      const world = new World(undefined);
      const def = retrySaga(() => world, scheduler);
      const session = createSession({ slices: [], scheduler, sagas: [def] });
      const log: Trace[] = [];
      const snapshots: Snapshot[] = [];
      record(session, world, log, (n) => (snapshots[n] = session.snapshot()));
      session.runSaga(def, { app: 'web' }, { sagaId: 'R' }).subscribe();
      scheduler.flush();
      return { world, log, snapshots };
    }

    it('records stepRetrying between the two stepStarted of the retried step', () => {
      expect(first().log.map((t) => `${t.type} ${t.step ?? ''}`.trim())).toEqual([
        'started',
        'stepStarted create',
        'stepSucceeded create',
        'stepStarted configure',
        'stepRetrying configure',
        'stepStarted configure',
        'stepSucceeded configure',
        'completed',
      ]);
    });

    it('resumes after a crash at every record boundary, the ones around stepRetrying included: each step succeeds once, with one idempotency key', () => {
      const a = first();
      for (let k = 1; k < a.log.length - 1; k++) {
        for (const inFlightDone of [true, false]) {
          const scheduler = new VirtualTimeScheduler();
          const world = new World(undefined);
          world.calls.push(...a.world.calls.filter((c) => c.after < k || (inFlightDone && c.after === k)));
          const def = retrySaga(() => world, scheduler);
          const b = createSession({ slices: [], scheduler, sagas: [def] });
          b.restore(a.snapshots[k] as Snapshot);
          const log: Trace[] = a.log.slice(0, k);
          world.recorded = k;
          record(b, world, log);
          const outcomes: string[] = [];
          for (const resumed of b.resumeSagas()) resumed.result$.subscribe({ next: () => outcomes.push('completed'), error: () => outcomes.push('failed') });
          scheduler.flush();
          const label = `crash after event ${k} (${a.log[k - 1]?.type}), in-flight work ${inFlightDone ? 'done' : 'lost'}`;
          expect(log.at(-1)?.type, label).toBe('completed');
          expect(outcomes, label).toEqual(['completed']);
          expect(b.read('rxslice/sagas'), label).toEqual([]);
          const succeeded = log.filter((t) => t.type === 'stepSucceeded').map((t) => t.step);
          expect(succeeded, label).toEqual(['create', 'configure']);
          for (const c of world.calls) expect(c.key, label).toBe(`R/${c.step}`);
        }
      }
    });
  });
});
