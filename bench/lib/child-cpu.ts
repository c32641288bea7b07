import { readFileSync } from 'node:fs';

/**
 * CPU time (user + system, all threads) the process `pid` used so far, in ms, from
 * `/proc/<pid>/stat` (10 ms resolution); NaN where there is no /proc. On a loaded machine a
 * child's CPU time moves far less than its wall time.
 */
export function childCpuMs(pid: number | undefined): number {
  try {
    const fields = readFileSync(`/proc/${String(pid)}/stat`, 'utf8').replace(/^.*\) /, '').split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
  } catch {
    return NaN;
  }
}
