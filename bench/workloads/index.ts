import { dispatchWorkload } from './w1-dispatch';
import { fanOutWorkload } from './w2-fan-out';
import { diamondWorkload } from './w3-diamond';
import { logUnboundedWorkload, logWindowedWorkload } from './w4-log-append';
import { middlewareWorkload } from './w5-middleware';
import { effectWorkload } from './w6-effect-round-trip';
import { snapshotJsonWorkload, snapshotWorkload } from './w7-snapshot-restore';
import { replayWorkload } from './w8-replay';
import { digestIndexWorkload } from './w9-digest-index';
import { recorderWorkload, snapshotFileWorkload } from './w10-durable';
import { sagaRecoveryWorkload, sagaWorkload } from './w11-sagas';
import { journalAppendWorkload, journalRecoverWorkload } from './w10-jsonl';
import { checkpointGrowthWorkload } from './w13-checkpoints';
import { sharedLogWorkload } from './w14-shared';
import { coldOpenWorkload } from './w14-open';
import { groupCommitWorkload, oneSessionWorkload, sessions1Workload, sessions2Workload, sessions4Workload, sessions8Workload, sessions16Workload, sessions16x16Workload } from './w14-scale';
import { memoryWorkload } from './w16-memory';
import { logReadWorkload } from './w23-log-read';
import { watchCatchUpWorkload, watchDirectoryWorkload } from './w24-watch';
import type { Workload } from './workload';

/** Every workload, in report order. */
export const WORKLOADS: readonly Workload[] = [
  dispatchWorkload,
  fanOutWorkload,
  diamondWorkload,
  logUnboundedWorkload,
  logWindowedWorkload,
  middlewareWorkload,
  effectWorkload,
  snapshotWorkload,
  snapshotJsonWorkload,
  replayWorkload,
  digestIndexWorkload,
  snapshotFileWorkload,
  recorderWorkload,
  journalAppendWorkload,
  journalRecoverWorkload,
  sagaWorkload,
  sagaRecoveryWorkload,
  checkpointGrowthWorkload,
  sharedLogWorkload,
  sessions1Workload,
  sessions2Workload,
  sessions4Workload,
  sessions8Workload,
  sessions16Workload,
  sessions16x16Workload,
  oneSessionWorkload,
  groupCommitWorkload,
  coldOpenWorkload,
  memoryWorkload,
  logReadWorkload,
  watchCatchUpWorkload,
  watchDirectoryWorkload,
];
