import { z } from 'zod';
import { append, defineEvent, defineSlice, none, replace } from '../../src/index';

/**
 * The shared memory of two agent processes: a plan whose steps they claim, and the log of the
 * tool calls they made. (The seed's signal-file coordination, done with one shared session.)
 */
export const Step = z.object({
  id: z.number().int(),
  title: z.string(),
  tools: z.array(z.string()),
  status: z.enum(['planned', 'claimed', 'done']),
  owner: z.string().nullable(),
});
export type Step = z.infer<typeof Step>;

export const StepPlanned = defineEvent('plan/stepPlanned', z.object({ id: z.number().int(), title: z.string(), tools: z.array(z.string()) }));
export const StepClaimed = defineEvent('plan/stepClaimed', z.object({ id: z.number().int(), agent: z.string() }));
export const StepDone = defineEvent('plan/stepDone', z.object({ id: z.number().int(), agent: z.string() }));
export const ToolRan = defineEvent('tools/ran', z.object({ step: z.number().int(), tool: z.string(), agent: z.string() }));

const update = (steps: readonly Step[], id: number, change: (s: Step) => Step | undefined) => {
  const i = steps.findIndex((s) => s.id === id);
  const next = i < 0 ? undefined : change(steps[i] as Step);
  return next === undefined ? none() : replace(steps.map((s, j) => (j === i ? next : s)));
};

/** The plan: a claim on a step that is not `planned` any more changes nothing (the first claim in log order wins). */
export const Plan = defineSlice('plan', {
  policy: 'state',
  schema: Step,
  reducers: ({ on }) => [
    on(StepPlanned, (view, e) => (view.all().some((s) => s.id === e.payload.id) ? none() : append({ ...e.payload, status: 'planned' as const, owner: null }))),
    on(StepClaimed, (view, e) => update(view.all(), e.payload.id, (s) => (s.status === 'planned' ? { ...s, status: 'claimed', owner: e.payload.agent } : undefined))),
    on(StepDone, (view, e) => update(view.all(), e.payload.id, (s) => (s.owner === e.payload.agent && s.status === 'claimed' ? { ...s, status: 'done' } : undefined))),
  ],
});

/** Every tool call, by whom and for which step. */
export const ToolLog = defineSlice('tool-log', {
  policy: 'log',
  schema: z.object({ step: z.number().int(), tool: z.string(), agent: z.string() }),
  reducers: ({ on }) => [on(ToolRan, (_view, e) => append(e.payload))],
});
