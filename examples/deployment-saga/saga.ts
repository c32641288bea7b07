/**
 * The seed's DeploymentSaga ("State Management Abstractions", Proposal 6): create a VM, set up
 * its network, deploy the application; on a failure, undo what was done in reverse order.
 * Every call carries the step's idempotency key, so a retried or resumed call is deduplicated.
 */
import type { Observable } from 'rxjs';
import { z } from 'zod';
import { defineEvent, defineSaga, RetryPolicy } from '../../src/index';

export const DeployConfig = z.object({ app: z.string().min(1), image: z.string().min(1), replicas: z.number().int().positive() });
export type DeployConfig = z.infer<typeof DeployConfig>;

export interface Vm {
  readonly vmId: string;
}
export interface Network {
  readonly networkId: string;
}
export interface Deployment {
  readonly url: string;
}

/** The cloud API the saga talks to (observable, so the whole saga runs in virtual time in tests). */
export interface CloudApi {
  createVm(config: DeployConfig, options: { readonly key: string; readonly signal: AbortSignal }): Observable<Vm>;
  deleteVm(vmId: string, options: { readonly key: string }): Observable<void>;
  setupNetwork(vmId: string, options: { readonly key: string }): Observable<Network>;
  deleteNetwork(networkId: string, options: { readonly key: string }): Observable<void>;
  deploy(vmId: string, image: string, options: { readonly key: string; readonly signal: AbortSignal }): Observable<Deployment>;
}

export interface Deps {
  readonly cloud: CloudApi;
}

/** Dispatching it starts a deployment (the saga's `startOn`), its payload being the input. */
export const DeployRequested = defineEvent('deploy/requested', DeployConfig);

export const DeploymentSaga = defineSaga('deployment', { input: DeployConfig, startOn: DeployRequested })
  .withDeps<Deps>()
  .step('createResources', {
    run: (input, ctx) => ctx.deps.cloud.createVm(input, { key: ctx.idempotencyKey, signal: ctx.signal }),
    compensate: (vm, ctx) => ctx.deps.cloud.deleteVm(vm.vmId, { key: ctx.idempotencyKey }),
    timeoutMs: 30_000,
    retry: RetryPolicy.exponential({ maxAttempts: 3, initialDelayMs: 500 }),
  })
  .step('configureNetworking', {
    run: (_input, ctx) => ctx.deps.cloud.setupNetwork(ctx.result('createResources').vmId, { key: ctx.idempotencyKey }),
    compensate: (network, ctx) => ctx.deps.cloud.deleteNetwork(network.networkId, { key: ctx.idempotencyKey }),
  })
  .step('deployApplication', {
    run: (input, ctx) => ctx.deps.cloud.deploy(ctx.result('createResources').vmId, input.image, { key: ctx.idempotencyKey, signal: ctx.signal }),
    timeoutMs: 60_000,
  });
