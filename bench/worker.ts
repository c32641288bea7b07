/**
 * Every workload in one entry: `node --import tsx bench/worker.ts <workload> <contender>`. The
 * runner uses this only when esbuild is missing; otherwise it bundles one entry per workload
 * (lib/worker-process.ts), which loads that one workload's code. Either way a process measures one
 * contender on one workload (lib/cell.ts).
 */
import { runCell } from './lib/cell';
import { WORKLOADS } from './workloads/index';

const [workloadId, contender] = process.argv.slice(2);
runCell(
  workloadId,
  WORKLOADS.find((w) => w.id === workloadId),
  contender,
  WORKLOADS.map((w) => w.id).join(', '),
);
