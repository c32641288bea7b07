/**
 * Runs one contender on one workload in this (fresh) process and prints one line:
 * `BENCH_RESULT {"ok":true,"value":...,"extra":{...}}`, or `{"ok":false,"error":"..."}` and
 * exit code 1 when the workload's check failed (a fast wrong answer must not count).
 *
 * The runner bundles one entry per workload that imports only that workload's module and calls
 * {@link runCell} (see lib/worker-process.ts), so a worker process loads and runs the code of one
 * workload and one contender: every call site of the timed loop sees that one contender.
 */
import { BenchCheckError, DeadlineExceededError } from './measure';
import { isUnavailable, type Workload } from '../workloads/workload';


/** Prefix of the result line on stdout. */
export const RESULT_PREFIX = 'BENCH_RESULT ';

async function measureCell(id: string | undefined, workload: Workload | undefined, contender: string | undefined, known: string): Promise<void> {
  const entry = workload?.contenders[contender ?? ''];
  if (workload === undefined || entry === undefined) {
    throw new Error(`Unknown workload/contender "${id}" / "${contender}". Known: ${known}.`);
  }
  if (isUnavailable(entry)) {
    process.stdout.write(`${RESULT_PREFIX}${JSON.stringify({ ok: false, unavailable: entry.unavailable })}\n`);
    return;
  }
  const m = await entry();
  process.stdout.write(`${RESULT_PREFIX}${JSON.stringify({ ok: true, value: m.value, extra: m.extra ?? {} })}\n`);
}

/**
 * Measures `contender` on `workload` (the one asked for as `id`; undefined when there is none),
 * prints the `BENCH_RESULT` line and exits the process (code 0, or 1 when the check failed or the
 * worker threw). `known` lists what could have been asked for, for the error of an unknown pair.
 */
export function runCell(id: string | undefined, workload: Workload | undefined, contender: string | undefined, known: string): void {
  measureCell(id, workload, contender, known).then(
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
}
