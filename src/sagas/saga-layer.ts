import type { SagaLayer } from '../session/feature-layers';
import { installSagas, resumeSagas, runSaga, sagaHistory } from './run-saga';

/** @internal What `defineSaga` links for `createSession({ sagas })` and the session's saga methods (see `SAGA_LAYER`). */
export const sagaLayer: SagaLayer = { install: installSagas, run: runSaga, resume: resumeSagas, history: sagaHistory };
