/**
 * The seed's PlanWorkflow ("State Management Abstractions", refactoring 3): a statechart that
 * governs a Plan slice. The slice's reducers change the steps; the workflow decides first
 * whether an event is allowed at all, reading the Plan slice in its guards.
 *
 * ```
 * idle --CreatePlan--> active --CompletePlan [allStepsDone]--> completed (final)
 *                      active --AddStep [stepIsNew]-->      active (targetless)
 *                      active --UpdateStep [stepExists]-->  active (targetless; the seed's `_step_exists`)
 *                      active --CancelPlan-->               cancelled (final)
 * ```
 *
 * Installed in a session (`session.install(PlanWorkflow)`), the machine decides every event it
 * names before the Plan slice's reducers run: an `UpdateStep` for a step that does not exist
 * fails with `InvalidTransitionError` and changes nothing, so the reducer below never has to
 * check (it would fail with a `TypeError` reading `step.title`).
 */
import { z } from 'zod';
import { append, defineEvent, defineSlice, replace } from '../../src/index';
import { assign, refuse, setupMachine, type InvalidTransitionPolicy } from '../../src/machines/index';

export const StepStatus = z.enum(['pending', 'inProgress', 'done', 'failed']);

/** Starts a plan for a goal. */
export const CreatePlan = defineEvent('plan/created', z.object({ goal: z.string().min(1) }));
/** Adds a pending step; its id must be new. */
export const AddStep = defineEvent('plan/stepAdded', z.object({ id: z.string().min(1), title: z.string() }));
/** Changes a step's status; the step must exist. */
export const UpdateStep = defineEvent('plan/stepUpdated', z.object({ id: z.string().min(1), status: StepStatus }));
/** Finishes the plan; every step must be done. */
export const CompletePlan = defineEvent('plan/completed');
/** Abandons the plan. */
export const CancelPlan = defineEvent('plan/cancelled', z.object({ reason: z.string() }));

export const Step = z.object({ id: z.string(), title: z.string(), status: StepStatus });
export type Step = z.infer<typeof Step>;

/** The plan's steps, in the order they were added. */
export const Plan = defineSlice('plan', {
  policy: 'state',
  schema: Step,
  reducers: ({ on }) => [
    on(CreatePlan, () => replace<Step>([])),
    on(AddStep, (_view, e) => append<Step>({ id: e.payload.id, title: e.payload.title, status: 'pending' })),
    on(UpdateStep, (view, e) => {
      const steps = view.all();
      const index = steps.findIndex((s) => s.id === e.payload.id);
      const step = steps[index] as Step; // the workflow's stepExists guard checked it exists
      return replace(steps.toSpliced(index, 1, { id: step.id, title: step.title, status: e.payload.status }));
    }),
  ],
});

/** The workflow's own data: the goal, and how many step updates it let through. */
export interface PlanContext {
  readonly goal: string;
  readonly updates: number;
  readonly cancelReason: string | null;
}

const stepIds = (steps: readonly Step[]) => steps.map((s) => s.id);

const planSetup = setupMachine({
  context: { goal: '', updates: 0, cancelReason: null } as PlanContext,
  events: [CreatePlan, AddStep, UpdateStep, CompletePlan, CancelPlan],
});

/**
 * The workflow with a given policy for events it rejects: `'throw'` (the seed's choice, the
 * default), `'report'` (rejected, reported on `errors$`) or `'ignore'` (the machine stays put
 * and the event reaches the slices anyway).
 */
export const definePlanWorkflow = (invalidTransitions: InvalidTransitionPolicy = 'throw') =>
  planSetup.defineMachine('planWorkflow', {
    invalidTransitions,
    initial: 'idle',
    states: {
      idle: {
        on: { 'plan/created': { target: 'active', actions: assign(({ event }) => ({ goal: event.payload.goal })) } },
      },
      active: {
        on: {
          'plan/stepAdded': {
            // A guard may say why it refuses: the reason travels with InvalidTransitionError.
            guard: function stepIsNew({ event, slices }) {
              return !stepIds(slices.get(Plan).all()).includes(event.payload.id) || refuse(`step "${event.payload.id}" exists already`);
            },
          },
          'plan/stepUpdated': {
            // The seed's `_step_exists`: reads the Plan slice as committed before this event.
            guard: function stepExists({ event, slices }) {
              return stepIds(slices.get(Plan).all()).includes(event.payload.id) || refuse(`there is no step "${event.payload.id}"`);
            },
            actions: assign(({ context }) => ({ updates: context.updates + 1 })),
          },
          'plan/completed': {
            target: 'completed',
            guard: function allStepsDone({ slices }) {
              const steps = slices.get(Plan).all();
              if (steps.length === 0) return refuse('Must provide at least one step'); // the seed's message
              const open = steps.filter((s) => s.status !== 'done').length;
              return open === 0 || refuse(`all steps must be done (${open} of ${steps.length} are not)`);
            },
          },
          'plan/cancelled': { target: 'cancelled', actions: assign(({ event }) => ({ cancelReason: event.payload.reason })) },
        },
      },
      completed: { type: 'final', output: ({ context }) => ({ goal: context.goal, updates: context.updates }) },
      cancelled: { type: 'final' },
    },
  });

export const PlanWorkflow = definePlanWorkflow();
