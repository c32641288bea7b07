import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  createSession,
  defineEvent,
  defineSlice,
  DuplicateSliceError,
  InvalidSliceDefinitionError,
  SliceInstalled,
  type CommittedEnvelope,
} from '../../src/index';
import { jsonl } from '../../src/jsonl/index';

// The seed's `session.install(AgentPlan, initial=lambda: AgentPlan(steps=()))`, then
// `session.dispatch(AddStep(...))` (issue 33, item 4).

const AddStep = defineEvent('plan/stepAdded', z.object({ step: z.string() }));
const Plan = z.object({ steps: z.array(z.string()) });
const AgentPlan = defineSlice('agentPlan', {
  policy: 'state',
  schema: Plan,
  reducers: ({ produceLatest }) => [
    produceLatest(AddStep, (plan, e) => {
      plan.steps.push(e.payload.step);
    }),
  ],
});
const Noted = defineEvent('notes/noted', z.string());

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'rxslice-install-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('session.install(slice, { initial })', () => {
  it("runs the seed's call: installed with its initial items, its events then reduce, one audited event", () => {
    const session = createSession({ slices: [], events: [AddStep, Noted] });
    const seen: { type: string; payload: unknown }[] = [];
    session.committed$.subscribe((c: CommittedEnvelope) => seen.push({ type: c.event.type, payload: c.event.payload }));
    const handle = session.install(AgentPlan, { initial: () => [{ steps: [] }] });
    expect(handle.latest()).toEqual({ steps: [] });
    session.dispatch(AddStep({ step: 'read the issue' }));
    session.dispatch(AddStep({ step: 'fix it' }));
    expect(session.slice(AgentPlan).latest()).toEqual({ steps: ['read the issue', 'fix it'] });
    expect(seen.map((c) => c.type)).toEqual([SliceInstalled.type, 'plan/stepAdded', 'plan/stepAdded']);
    expect(seen[0]?.payload).toEqual({ slice: 'agentPlan', items: 1 });
    expect(Object.keys(session.snapshot().slices)).toContain('agentPlan');
  });

  it('accepts its events once installed, even in a session that did not declare them (unknown before)', () => {
    const session = createSession({ slices: [], unknownEvents: 'reject' });
    expect(() => session.dispatch(AddStep({ step: 'x' }) as never)).toThrow(/not|unknown/i);
    session.install(AgentPlan, { initial: [{ steps: [] }] });
    session.dispatch(AddStep({ step: 'x' }) as never);
    expect(session.slice(AgentPlan).latest()).toEqual({ steps: ['x'] });
  });

  it('refuses bad initial items and a duplicate, installing nothing', () => {
    const session = createSession({ slices: [], events: [AddStep] });
    expect(() => session.install(AgentPlan, { initial: [{ steps: 'no' } as never] })).toThrow(InvalidSliceDefinitionError);
    expect(() => session.slice(AgentPlan)).toThrow();
    expect(session.lastSeq).toBe(0);
    session.install(AgentPlan);
    expect(() => session.install(AgentPlan)).toThrow(DuplicateSliceError);
  });

  it('opens its storage like the others: on JSONL, a reopen that installs it again recovers its items (not the initial ones) and the seq goes on', () => {
    const open = () => createSession({ slices: [], events: [AddStep], storage: jsonl({ dir, fsync: 'never' }) });
    const a = open();
    a.install(AgentPlan, { initial: () => [{ steps: [] }] });
    a.dispatch(AddStep({ step: 'plan' }));
    const last = a.lastSeq;
    a.dispose();
    const b = open();
    expect(b.lastSeq).toBe(last);
    b.install(AgentPlan, { initial: () => [{ steps: ['ignored'] }] });
    expect(b.slice(AgentPlan).latest()).toEqual({ steps: ['plan'] });
    b.dispatch(AddStep({ step: 'code' }));
    expect(b.lastSeq).toBe(last + 2);
    expect(b.slice(AgentPlan).latest()).toEqual({ steps: ['plan', 'code'] });
    b.dispose();
  });
});
