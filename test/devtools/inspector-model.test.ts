/** The inspector's read side on a recording with sagas and a statechart, recorded for real. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { lastValueFrom } from 'rxjs';
import { afterAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createSession, defineEvent, defineMachine, defineSaga, RetryPolicy, SagaHistorySlice, SagaProgressSlice, toMermaid } from '../../src/index';
import { InspectorModel } from '../../src/devtools/index';
import { flightRecorder } from '../../src/jsonl/index';
import { Counter, CounterBumped, NoteAdded, Notes } from '../fixtures';

const dir = mkdtempSync(join(tmpdir(), 'rxslice-inspector-model-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const Input = z.object({ app: z.string() });
const Deploy = defineSaga('deploy', { input: Input })
  .step('createResources', { run: (input) => `vm-${input.app}`, compensate: () => undefined })
  .step('release', { run: (input) => `${input.app}@1` });
const Broken = defineSaga('broken', { input: Input })
  .step('createResources', { run: () => 'vm', compensate: () => undefined })
  .step('migrate', {
    run: () => {
      throw new Error('migration failed');
    },
  });
const Flaky = defineSaga('flaky', { input: Input }).step('charge', {
  retry: RetryPolicy.fixed(0, 1),
  run: (_input, ctx) => {
    if (ctx.attempt === 1) throw new Error('busy');
    return 'charged';
  },
});
const Toggled = defineEvent('light/toggled');
const Light = defineMachine('light', {
  initial: 'off',
  states: { off: { on: { 'light/toggled': 'on' } }, on: { on: { 'light/toggled': 'off' } } },
});

async function record(file: string) {
  const session = createSession({ slices: [Notes, Counter], sagas: [Deploy, Broken, Flaky], events: [Toggled] });
  const machineSlice = session.install(Light).slice;
  const recorder = flightRecorder(session, { file, snapshotEvery: 4 });
  session.dispatch(NoteAdded({ id: 1, text: 'a' }));
  session.dispatch(Toggled());
  await lastValueFrom(session.runSaga(Deploy, { app: 'web' }));
  await lastValueFrom(session.runSaga(Broken, { app: 'db' })).catch(() => undefined);
  await lastValueFrom(session.runSaga(Flaky, { app: 'shop' }));
  session.dispatch(CounterBumped({ by: 2 }));
  recorder.close();
  const live = session.snapshot({ includeLogs: true });
  session.dispose();
  return { machineSlice, live };
}

describe('InspectorModel', () => {
  it('reads sagas into the timeline, statecharts with their configuration, and states equal to the live session', async () => {
    const file = join(dir, 'sagas.jsonl');
    const { machineSlice, live } = await record(file);
    const sagaSlice = Object.keys(live.slices).find((n) => n.includes('saga'));
    expect(sagaSlice).toBeDefined();
    // The replay session has the machine's and the sagas' reducers: the live session's own make.
    const model = new InspectorModel(file, {
      slices: [Notes, Counter, machineSlice, SagaProgressSlice, SagaHistorySlice],
      session: (scheduler) => {
        const s = createSession({ slices: [Notes, Counter], sagas: [Deploy, Broken, Flaky], events: [Toggled], scheduler });
        s.install(Light);
        return s;
      },
      machines: [Light],
    });
    const last = model.recording.lastSeq;
    const itemsOf = (slices: Record<string, { items: readonly unknown[] }>) => Object.fromEntries(Object.entries(slices).map(([k, v]) => [k, v.items]));
    expect(itemsOf(model.state(last).slices)).toEqual(itemsOf(JSON.parse(JSON.stringify(live.toJSON().slices))));

    const sagas = model.timeline().filter((e) => e.kind === 'saga');
    expect(sagas.map((s) => [s.name, s.outcome, s.attempts, s.retries, s.compensations])).toEqual([
      ['deploy', 'completed', 2, 0, 0],
      ['broken', 'failed', 2, 0, 1],
      ['flaky', 'completed', 2, 1, 0],
    ]);
    expect(sagas[2]?.events.map((e) => e.what)).toEqual(['started', 'stepStarted', 'stepRetrying', 'stepStarted', 'stepSucceeded', 'completed']);
    expect(sagas[1]?.events.map((e) => e.what)).toEqual(['started', 'stepStarted', 'stepSucceeded', 'stepStarted', 'stepFailed', 'compensating', 'stepCompensated', 'failed']);

    const toggledAt = [...model.recording.envelopes()].find((e) => e.event.type === 'light/toggled')?.seq as number;
    const before = model.machines(toggledAt - 1)[0];
    const after = model.machines(toggledAt)[0];
    expect(before?.basicConfiguration).toEqual(['off']);
    expect(after?.basicConfiguration).toEqual(['on']);
    expect(after?.mermaid).toBe(toMermaid(Light, { targetless: 'omit' }));

    const series = model.series(3);
    expect(series.phases['light']).toEqual(['off', 'on', 'on']);
    expect(series.numbers['counter.n']?.[2]).toBe(3); // the note bumped it too (fixture)
    const page = model.events({ offset: 0, limit: 100, text: 'migration failed' });
    expect(page.rows.map((r) => r.type)).toEqual(['rxslice.saga.stepFailed', 'rxslice.saga.failed']); // both carry the error
  });

  it('refresh follows a recording being written: pages, types, filters and the timeline extend with the new envelopes', async () => {
    const file = join(dir, 'live.jsonl');
    const session = createSession({ slices: [Notes, Counter], sagas: [Deploy] });
    const recorder = flightRecorder(session, { file, snapshotEvery: 3 });
    session.dispatch(NoteAdded({ id: 1, text: 'first' }));
    recorder.flush();
    const model = new InspectorModel(file, { slices: [Notes, Counter, SagaProgressSlice, SagaHistorySlice] });
    // Every cache filled on the first part of the recording.
    expect(model.types().find((t) => t.type === 'notes/added')?.count).toBe(1);
    expect(model.events({ offset: 0, limit: 10, text: 'second' }).total).toBe(0);
    expect(model.timeline()).toEqual([]);
    const before = model.recording.lastSeq;
    session.dispatch(NoteAdded({ id: 2, text: 'second' }));
    await lastValueFrom(session.runSaga(Deploy, { app: 'web' }));
    recorder.flush();
    expect(model.events({ offset: 0, limit: 100 }).total).toBe(before); // not refreshed yet
    const added = model.refresh();
    expect(added).toBe(session.lastSeq - before);
    expect(model.recording.lastSeq).toBe(session.lastSeq);
    expect(model.events({ offset: 0, limit: 100 }).rows.map((r) => r.seq)).toEqual(Array.from({ length: session.lastSeq }, (_, i) => i + 1));
    expect(model.types().find((t) => t.type === 'notes/added')?.count).toBe(2);
    expect(model.events({ offset: 0, limit: 10, text: 'second' }).rows.map((r) => r.type)).toEqual(['notes/added']);
    expect(model.timeline().map((e) => [e.name, e.outcome])).toEqual([['deploy', 'completed']]);
    const itemsOf = (slices: Record<string, { items: readonly unknown[] }>) => Object.fromEntries(Object.entries(slices).map(([k, v]) => [k, v.items]));
    expect(itemsOf(model.state(session.lastSeq).slices)).toEqual(itemsOf(JSON.parse(JSON.stringify(session.snapshot({ includeLogs: true }).toJSON().slices))));
    recorder.close();
    session.dispose();
  });
});
