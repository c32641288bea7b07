/**
 * Runs one contender on one workload in this (fresh) process and prints one line:
 * `BENCH_RESULT {"ok":true,"value":...,"extra":{...}}`, or `{"ok":false,"error":"..."}` and
 * exit code 1 when the workload's check failed (a fast wrong answer must not count).
 *
 * Usage (the runner does this): `NODE_ENV=production node --expose-gc worker.mjs <workload> <contender>`.
 */
import { BenchCheckError } from './lib/measure';
import { isUnavailable } from './workloads/workload';
import { WORKLOADS } from './workloads/index';
import { DeadlineExceededError } from './workloads/w4-log-append';

/** Prefix of the result line on stdout. */
export const RESULT_PREFIX = 'BENCH_RESULT ';

async function main(): Promise<void> {
  const [workloadId, contender] = process.argv.slice(2);
  const workload = WORKLOADS.find((w) => w.id === workloadId);
  const entry = workload?.contenders[contender ?? ''];
  if (workload === undefined || entry === undefined) {
    throw new Error(`Unknown workload/contender "${workloadId}" / "${contender}". Known: ${WORKLOADS.map((w) => w.id).join(', ')}.`);
  }
  if (isUnavailable(entry)) {
    process.stdout.write(`${RESULT_PREFIX}${JSON.stringify({ ok: false, unavailable: entry.unavailable })}\n`);
    return;
  }
  const m = await entry();
  process.stdout.write(`${RESULT_PREFIX}${JSON.stringify({ ok: true, value: m.value, extra: m.extra ?? {} })}\n`);
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    if (error instanceof DeadlineExceededError) {
      const { done, total, elapsedMs } = error;
      process.stdout.write(`${RESULT_PREFIX}${JSON.stringify({ ok: false, timedOut: true, done, total, elapsedMs })}\n`);
      process.exit(0);
    }
    const failed = error instanceof BenchCheckError;
    const message = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    process.stdout.write(`${RESULT_PREFIX}${JSON.stringify({ ok: false, failed, error: message })}\n`);
    if (!failed && error instanceof Error && error.stack) process.stderr.write(`${error.stack}\n`);
    process.exit(1);
  },
);
