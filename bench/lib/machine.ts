/** The machine, runtime and library versions a run was measured on. */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import os from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = dirname(dirname(dirname(fileURLToPath(import.meta.url))));

/** Versions of the measured libraries, read from their installed package.json. */
export function libraryVersions(): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of ['rxjs', 'redux', 'reselect', '@reduxjs/toolkit', 'immer', '@ngneat/elf', 'zustand', 'zod']) {
    try {
      const pkgPath = join(ROOT, 'node_modules', name, 'package.json');
      out[name] = (JSON.parse(readFileSync(pkgPath, 'utf8')) as { version: string }).version;
    } catch {
      out[name] = 'unknown';
    }
  }
  return out;
}

/** A one-line-per-fact description of the machine for RESULTS.md. */
export function machineInfo(): Record<string, string> {
  const cpus = os.cpus();
  return {
    CPU: `${cpus[0]?.model ?? 'unknown'} × ${cpus.length} (os.availableParallelism ${os.availableParallelism()})`,
    Memory: `${(os.totalmem() / 2 ** 30).toFixed(1)} GiB`,
    OS: `${os.type()} ${os.release()} (${os.arch()})`,
    Node: process.version,
    V8: process.versions.v8,
  };
}

/** The 1-minute load average, formatted. */
export const loadAverage = (): string => os.loadavg().map((l) => l.toFixed(2)).join(' / ');

/**
 * The commit measured, and the measured sources (`src/`, `examples/`, `bench/`) that differ
 * from it (other engineers may be editing the checkout during a run).
 */
export function gitInfo(): string {
  try {
    const git = (...args: string[]): string => execFileSync('git', args, { cwd: ROOT, encoding: 'utf8' }).trim();
    const head = git('log', '-1', '--format=%h %s');
    const dirty = git('status', '--porcelain', '--', 'src', 'examples', 'bench')
      .split('\n')
      .filter((l) => l.trim() !== '' && !l.includes('bench/RESULTS.md'));
    return dirty.length === 0 ? `${head} (clean)` : `${head}, plus ${dirty.length} uncommitted change(s): ${dirty.map((l) => l.trim()).join(', ')}`;
  } catch {
    return 'unknown (git not available)';
  }
}
