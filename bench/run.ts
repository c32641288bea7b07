/**
 * `npm run bench`: runs every workload for every contender, each measurement in a fresh child
 * process, interleaving contenders within each round, and writes bench/RESULTS.md.
 *
 * Options (arguments after `npm run bench --`, or environment variables):
 * - `--rounds=N` / `BENCH_ROUNDS` — rounds per cell (default 3);
 * - `--only=1,4u,snapshot` / `BENCH_ONLY` — workload numbers or ids to run;
 * - `--contenders=plain,rxslice` / `BENCH_CONTENDERS` — contender keys to run;
 * - `--no-write` — print only, leave RESULTS.md alone;
 * - `BENCH_BUDGET_MS` (default 600) and `BENCH_LOG_DEADLINE_MS` (default 5000), see lib/measure.ts.
 *
 * Exits with code 1 when any workload's check FAILED.
 */
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DEFAULT_BUDGET_MS } from './lib/measure';
import { gitInfo, libraryVersions, loadAverage, machineInfo } from './lib/machine';
import { renderReport } from './lib/report';
import { Results } from './lib/results';
import { fmt } from './lib/stats';
import { evaluateTargets } from './lib/targets';
import { buildWorker, runWorker } from './lib/worker-process';
import { WORKLOADS } from './workloads/index';
import { CONTENDER_LABELS } from './workloads/workload';
import { LOG_DEADLINE_MS } from './workloads/w4-log-append';
import { contenderKeys } from './lib/report';

const option = (name: string, env: string): string | undefined =>
  process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3) ?? process.env[env];

const rounds = Number(option('rounds', 'BENCH_ROUNDS') ?? 3);
const only = option('only', 'BENCH_ONLY')?.split(',').map((s) => s.trim());
const onlyContenders = option('contenders', 'BENCH_CONTENDERS')?.split(',').map((s) => s.trim());
const write = !process.argv.includes('--no-write');
/** A worker that runs longer than this is killed and its cell marked FAILED. */
const CHILD_TIMEOUT_MS = 180_000;

const workloads = WORKLOADS.filter((w) => only === undefined || only.includes(w.number) || only.includes(w.id));

async function main(): Promise<void> {
  const started = Date.now();
  const loadBefore = loadAverage();
  const git = gitInfo();
  const command = await buildWorker();
  const results = new Results();
  console.log(`rxslice bench: ${workloads.length} workloads, ${rounds} rounds, worker: ${command.description}`);
  console.log(`load average before: ${loadBefore}`);

  for (let round = 0; round < rounds; round++) {
    for (const [wi, w] of workloads.entries()) {
      const keys = contenderKeys(w).filter((k) => onlyContenders === undefined || onlyContenders.includes(k));
      const shift = (round + wi) % keys.length;
      const order = [...keys.slice(shift), ...keys.slice(0, shift)];
      for (const key of order) {
        const cell = results.cell(w.id, key);
        if (cell.settled || cell.values.length >= (w.maxRounds ?? Infinity)) continue;
        const outcome = await runWorker(command, w.id, key, CHILD_TIMEOUT_MS);
        cell.add(outcome);
        const prefix = `[round ${round + 1}/${rounds}] ${w.number} ${w.id} · ${CONTENDER_LABELS[key] ?? key}:`;
        switch (outcome.kind) {
          case 'ok':
            console.log(`${prefix} ${fmt(outcome.value)} ${w.unit} (${fmt(outcome.extra['ops'] ?? 0, 0)} ops, ${fmt(outcome.wallMs / 1000)} s wall)`);
            break;
          case 'unavailable':
            console.log(`${prefix} not available yet: ${outcome.reason}`);
            break;
          case 'timed-out':
            console.log(`${prefix} stopped at the deadline: ${fmt(outcome.done, 0)} of ${fmt(outcome.total, 0)} in ${fmt(outcome.elapsedMs, 0)} ms`);
            break;
          case 'failed':
            console.log(`${prefix} FAILED: ${outcome.error}`);
            break;
        }
      }
    }
  }

  const targets = evaluateTargets(results);
  const report = renderReport(workloads, results, targets, {
    date: new Date().toISOString(),
    rounds,
    elapsedS: (Date.now() - started) / 1000,
    machine: machineInfo(),
    libraries: libraryVersions(),
    loadBefore,
    loadAfter: loadAverage(),
    git,
    worker: command.description,
    budgetMs: DEFAULT_BUDGET_MS,
    logDeadlineMs: LOG_DEADLINE_MS,
  });
  console.log('\nTargets:');
  for (const t of targets) console.log(`  ${t.status === 'met' ? 'met   ' : t.status === 'missed' ? 'MISSED' : 'n/a   '} ${t.workload}: ${t.target} — ${t.detail}`);
  if (write) {
    const file = join(dirname(fileURLToPath(import.meta.url)), 'RESULTS.md');
    writeFileSync(file, `${report}\n`);
    console.log(`\nWrote ${file} (${fmt((Date.now() - started) / 1000, 0)} s).`);
  } else {
    console.log(`\n${report}`);
  }
  const failures = results.failures();
  if (failures.length > 0) {
    console.log(`\nFAILED:\n  ${failures.join('\n  ')}`);
    process.exitCode = 1;
  }
}

void main();
