import { of, type Observable } from 'rxjs';
import { describe, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import { createSession, defineSaga, step, type InferSagaInput, type InferSagaResult, type SagaStepContext } from '../../src/index';

interface Vm {
  readonly vmId: string;
}
interface Net {
  readonly networkId: string;
}

const DeployConfig = z.object({ app: z.string(), replicas: z.number() });
type DeployConfig = z.infer<typeof DeployConfig>;

describe('saga types', () => {
  it('checks annotated step inputs against the schema, infers each step result from its run, and compensate gets its own step result', () => {
    const Saga = defineSaga('deployment', {
      input: DeployConfig,
      steps: [
        step('createResources', {
          run: (input: DeployConfig) => {
            expectTypeOf(input).toEqualTypeOf<{ app: string; replicas: number }>();
            return Promise.resolve<Vm>({ vmId: `vm-${input.app}` });
          },
          compensate: (vm) => {
            expectTypeOf(vm).toEqualTypeOf<Vm>();
            return undefined;
          },
        }),
        step('configureNetworking', { run: (): Observable<Net> => of({ networkId: 'n' }), compensate: (net) => expectTypeOf(net).toEqualTypeOf<Net>() }),
        step('deployApplication', { run: () => 'https://web' }),
      ],
    });
    expectTypeOf<InferSagaInput<typeof Saga>>().toEqualTypeOf<{ app: string; replicas: number }>();
    expectTypeOf<InferSagaResult<typeof Saga>>().toEqualTypeOf<{
      readonly createResources: Vm;
      readonly configureNetworking: Net;
      readonly deployApplication: string;
    }>();
    const session = createSession({ slices: [] });
    expectTypeOf(session.runSaga(Saga, { app: 'web', replicas: 2 })).toEqualTypeOf<
      Observable<{ readonly createResources: Vm; readonly configureNetworking: Net; readonly deployApplication: string }>
    >();
    // @ts-expect-error the input must match the saga's schema
    session.runSaga(Saga, { app: 'web' });
    // @ts-expect-error a step annotated with another input type does not fit the saga
    defineSaga('wrongInput', {
      input: DeployConfig,
      steps: [step('a', { run: (input: { other: boolean }) => input.other })],
    });
  });

  it('types ctx.result by step name when the earlier results are given as a type argument', () => {
    type Earlier = { createResources: Vm };
    step<'configureNetworking', Net, unknown, { app: string }, Earlier>('configureNetworking', {
      run: (_input, ctx) => {
        expectTypeOf(ctx.result('createResources')).toEqualTypeOf<Vm>();
        // @ts-expect-error only the names of the earlier steps
        ctx.result('deployApplication');
        return { networkId: ctx.result('createResources').vmId };
      },
    });
    expectTypeOf<SagaStepContext['idempotencyKey']>().toEqualTypeOf<string>();
    expectTypeOf<SagaStepContext['signal']>().toEqualTypeOf<AbortSignal>();
  });
});

describe('saga builder types', () => {
  interface Deps {
    readonly cloud: { createVm(app: string): Promise<Vm>; setupNetwork(vmId: string): Observable<Net> };
  }
  it('infers the input from the schema, each result from its run, and types ctx.result with the earlier steps only', () => {
    const Saga = defineSaga('deployment', { input: DeployConfig })
      .withDeps<Deps>()
      .step('createResources', {
        run: (input, ctx) => {
          expectTypeOf(input).toEqualTypeOf<{ app: string; replicas: number }>();
          expectTypeOf(ctx.deps).toEqualTypeOf<Deps>();
          // @ts-expect-error no step has completed before the first
          ctx.result('createResources');
          return ctx.deps.cloud.createVm(input.app);
        },
        compensate: (vm) => expectTypeOf(vm).toEqualTypeOf<Vm>(),
      })
      .step('configureNetworking', {
        run: (_input, ctx) => {
          expectTypeOf(ctx.result('createResources')).toEqualTypeOf<Vm>();
          // @ts-expect-error a later step's name
          ctx.result('deployApplication');
          // @ts-expect-error its own name
          ctx.result('configureNetworking');
          return ctx.deps.cloud.setupNetwork(ctx.result('createResources').vmId);
        },
        compensate: (net) => expectTypeOf(net).toEqualTypeOf<Net>(),
      })
      .step('deployApplication', {
        run: (input, ctx) => {
          expectTypeOf(ctx.result('configureNetworking')).toEqualTypeOf<Net>();
          return `https://${input.app}/${ctx.result('configureNetworking').networkId}`;
        },
      });
    expectTypeOf<InferSagaInput<typeof Saga>>().toEqualTypeOf<{ app: string; replicas: number }>();
    expectTypeOf<InferSagaResult<typeof Saga>>().toEqualTypeOf<{
      readonly createResources: Vm;
      readonly configureNetworking: Net;
      readonly deployApplication: string;
    }>();
    const session = createSession({ slices: [], sagas: [Saga] });
    expectTypeOf(session.runSaga(Saga, { app: 'web', replicas: 2 })).toEqualTypeOf<
      Observable<{ readonly createResources: Vm; readonly configureNetworking: Net; readonly deployApplication: string }>
    >();
    // @ts-expect-error the input must match the saga's schema
    session.runSaga(Saga, { app: 'web' });
  });

  it('refuses a step name used twice, and a saga without steps where a saga is expected', () => {
    const Start = defineSaga('s', { input: DeployConfig });
    // @ts-expect-error "a" is already a step of this saga
    Start.step('a', { run: () => 1 }).step('a', { run: () => 2 });
    const session = createSession({ slices: [] });
    // @ts-expect-error a saga needs at least one step
    session.runSaga(Start, { app: 'web', replicas: 1 });
  });
});
