/**
 * Hand benchmark (issue 36 item 5): one `WatchedTranscript` catching up on the bundled 1,512-line
 * transcript in this process, without the CLI, chokidar or a child process: the first catch-up
 * (cold code, as a new `rxslice watch` process runs it) and then warm ones, each on a new file and
 * session, in runs of 256 lines as the CLI pumps. `--store` gives each a durable store.
 *
 *   npx tsx bench/hand/watch-pump.ts [--store] [--rounds=N]     (BENCH_CLOCK=cpu: CPU time instead of wall)
 */
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import { WatchedTranscript } from '../../src/watch/watched-transcript';

const SOURCE = fileURLToPath(new URL('../../examples/data/spotter-4d5611e5-241a-462a-8d15-5122611a9569.jsonl', import.meta.url));
const store = process.argv.includes('--store');
/** BENCH_CLOCK=cpu: this process's CPU time (user + system, all its threads) instead of the wall time. */
const CPU = process.env['BENCH_CLOCK'] === 'cpu';
const rounds = Number(process.argv.find((a) => a.startsWith('--rounds='))?.slice(9) ?? 10);
const lines = readFileSync(SOURCE, 'utf8').split('\n').filter((l) => l !== '').length;

function catchUp(): number {
  const dir = mkdtempSync(path.join(tmpdir(), 'rxslice-hand-watch-'));
  const file = path.join(dir, 't.jsonl');
  copyFileSync(SOURCE, file);
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  const watched = new WatchedTranscript({ file, label: 't', ...(store ? { storeDir: path.join(dir, 'store') } : {}) });
  let applied = 0;
  do applied += watched.pump(256).lines;
  while (watched.backlogLines > 0);
  const cpu = process.cpuUsage(c0);
  const ms = CPU ? (cpu.user + cpu.system) / 1000 : performance.now() - t0;
  watched.close();
  rmSync(dir, { recursive: true, force: true });
  if (applied !== lines) throw new Error(`applied ${applied} of ${lines} lines`);
  return ms;
}

const cold = catchUp();
const warm: number[] = [];
for (let i = 0; i < rounds; i++) warm.push(catchUp());
warm.sort((a, b) => a - b);
const us = (ms: number): string => ((ms * 1000) / lines).toFixed(1);
const median = warm[warm.length >> 1];
console.log(`${store ? 'store' : 'memory'} (${CPU ? 'CPU' : 'wall'}): cold ${cold.toFixed(1)} ms (${us(cold)} µs/line)` + (median === undefined ? '' : `; warm median ${median.toFixed(1)} ms (${us(median)} µs/line), min ${warm[0]!.toFixed(1)}, max ${warm[warm.length - 1]!.toFixed(1)}`));
