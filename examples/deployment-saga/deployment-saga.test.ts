import { catchError, filter, map, of } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { beforeEach, describe, expect, it } from 'vitest';
import { createSession, SagaFailed, type SagaFailedError } from '../../src/index';
import { DeploymentSaga, DeployRequested, type CloudApi, type Deployment, type Network, type Vm } from './saga';

let scheduler: TestScheduler;
beforeEach(() => {
  scheduler = new TestScheduler((actual, expected) => expect(actual).toEqual(expected));
});

describe('DeploymentSaga (examples/deployment-saga)', () => {
  it('failure path: createResources → configureNetworking → deployApplication fails → networking, then resources, compensated', () => {
    scheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
      const createVm$ = cold<Vm>('--v|', { v: { vmId: 'vm-1' } });
      const setupNetwork$ = cold<Network>('-n|', { n: { networkId: 'net-1' } });
      const deploy$ = cold<Deployment>('---#', undefined, new Error('image does not start'));
      const deleteNetwork$ = cold<void>('-d|', { d: undefined });
      const deleteVm$ = cold<void>('-d|', { d: undefined });
      const deleted: string[] = [];
      const cloud: CloudApi = {
        createVm: () => createVm$,
        setupNetwork: () => setupNetwork$,
        deploy: () => deploy$,
        deleteNetwork: (id, { key }) => (deleted.push(`${id} ${key}`), deleteNetwork$),
        deleteVm: (id, { key }) => (deleted.push(`${id} ${key}`), deleteVm$),
      };
      const session = createSession({ slices: [], scheduler, sagas: [DeploymentSaga], dependencies: { cloud } });
      const steps = session.committed$.pipe(
        filter((c) => /rxslice\.saga\.(stepSucceeded|stepFailed|stepCompensated|failed)/.test(c.event.type)),
        map((c) => `${c.event.type.slice(13)} ${(c.event.payload as { step?: string }).step ?? ''}`.trim()),
      );
      expectObservable(steps).toBe('--ab--cd(ef)', {
        a: 'stepSucceeded createResources',
        b: 'stepSucceeded configureNetworking',
        c: 'stepFailed deployApplication',
        d: 'stepCompensated configureNetworking',
        e: 'stepCompensated createResources',
        f: 'failed deployApplication',
      });
      const outcome = session.runSaga(DeploymentSaga, { app: 'web', image: 'web:bad', replicas: 1 }, { sagaId: 'd1' }).pipe(
        map(() => 'deployed'),
        catchError((e: SagaFailedError) => of(`${e.code} at ${e.step}`)),
      );
      expectObservable(outcome).toBe('--------(f|)', { f: 'SAGA_FAILED at deployApplication' });
      expectSubscriptions(createVm$.subscriptions).toBe('^-!');
      expectSubscriptions(setupNetwork$.subscriptions).toBe('--^!');
      expectSubscriptions(deploy$.subscriptions).toBe('---^--!');
      expectSubscriptions(deleteNetwork$.subscriptions).toBe('------^!');
      expectSubscriptions(deleteVm$.subscriptions).toBe('-------^!');
      scheduler.flush();
      expect(deleted).toEqual(['net-1 d1/configureNetworking/compensate', 'vm-1 d1/createResources/compensate']);
    });
  });

  it('starts on DeployRequested (payload = input) and retries createResources with exponential backoff (500 ms, then 1 s)', () => {
    scheduler.run(({ cold, expectSubscriptions }) => {
      const flaky$ = cold<Vm>('-#', undefined, new Error('capacity'));
      const createVm$ = cold<Vm>('-v|', { v: { vmId: 'vm-2' } });
      let attempts = 0;
      const cloud: CloudApi = {
        createVm: () => (++attempts < 3 ? flaky$ : createVm$),
        setupNetwork: () => cold('-n|', { n: { networkId: 'net-2' } }),
        deploy: () => cold('-u|', { u: { url: 'https://vm-2' } }),
        deleteNetwork: () => cold('|'),
        deleteVm: () => cold('|'),
      };
      const session = createSession({ slices: [], scheduler, sagas: [DeploymentSaga], dependencies: { cloud }, events: [DeployRequested] });
      const ended: string[] = [];
      session.committed$.subscribe((c) => {
        if (c.event.type === 'rxslice.saga.completed' || SagaFailed.match(c.event)) ended.push(`${scheduler.now()} ${c.event.type}`);
      });
      session.dispatch(DeployRequested({ app: 'web', image: 'web:1', replicas: 1 }));
      expectSubscriptions(flaky$.subscriptions).toBe(['^!', '501ms ^!']);
      expectSubscriptions(createVm$.subscriptions).toBe('1502ms ^!');
      scheduler.flush();
      expect(ended).toEqual(['1505 rxslice.saga.completed']);
    });
  });
});
