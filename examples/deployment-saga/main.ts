/**
 * Runs the DeploymentSaga against an in-memory cloud twice: once deploying, once with a broken
 * image (deployApplication fails, the network then the VM are removed). `npx tsx examples/deployment-saga/main.ts`
 */
import { defer, of, throwError } from 'rxjs';
import { createSession, SagaFailedError } from '../../src/index';
import { DeploymentSaga, type CloudApi } from './saga';

const calls: string[] = [];
const cloud: CloudApi = {
  createVm: (config, { key }) => defer(() => (calls.push(`createVm ${key}`), of({ vmId: `vm-${config.app}` }))),
  deleteVm: (vmId, { key }) => defer(() => (calls.push(`deleteVm ${vmId} ${key}`), of(undefined))),
  setupNetwork: (vmId, { key }) => defer(() => (calls.push(`setupNetwork ${vmId} ${key}`), of({ networkId: `net-${vmId}` }))),
  deleteNetwork: (networkId, { key }) => defer(() => (calls.push(`deleteNetwork ${networkId} ${key}`), of(undefined))),
  deploy: (vmId, image, { key }) =>
    defer(() => (calls.push(`deploy ${vmId} ${key}`), image.endsWith(':broken') ? throwError(() => new Error(`image ${image} does not start`)) : of({ url: `https://${vmId}.example` }))),
};

const session = createSession({ slices: [], sagas: [DeploymentSaga], dependencies: { cloud } });
session.runSaga(DeploymentSaga, { app: 'web', image: 'web:1.2', replicas: 2 }, { sagaId: 'deploy-1' }).subscribe((r) => console.log('deployed at', r.deployApplication.url));
session.runSaga(DeploymentSaga, { app: 'api', image: 'api:broken', replicas: 1 }, { sagaId: 'deploy-2' }).subscribe({
  error: (e: SagaFailedError) => console.log(`failed at ${e.step}: ${(e.cause as Error).message}`),
});
console.log(calls.join('\n'));
