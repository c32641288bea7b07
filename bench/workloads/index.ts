import { dispatchWorkload } from './w1-dispatch';
import { fanOutWorkload } from './w2-fan-out';
import { diamondWorkload } from './w3-diamond';
import { logUnboundedWorkload, logWindowedWorkload } from './w4-log-append';
import { middlewareWorkload } from './w5-middleware';
import { effectWorkload } from './w6-effect-round-trip';
import { snapshotJsonWorkload, snapshotWorkload } from './w7-snapshot-restore';
import { replayWorkload } from './w8-replay';
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
];
