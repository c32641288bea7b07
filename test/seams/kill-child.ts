// Child process of the seams matrix: runs one workload on a JSONL directory and SIGKILLs itself
// right after its k-th journal record reached the file (a record boundary), wherever that falls:
// inside a dispatch, a saga, an effect's follow-up. argv: <workload> <root> <fsync> <k>; k < 0:
// run the workload, then hold the directory until stdin ends (`held <lastSeq> <pid>`).
// Prints `ready <lastSeq>` once open, `ack <lastSeq> <records>` after every step that returned
// (reported means stored: the parent requires the reopened store to hold it; `records`: journal
// records written so far), `done <lastSeq> <records>` at the end.
import { createRequire } from 'node:module';
import { openJsonl, settle } from './harness';
import { workload } from './workloads';
import type { JsonlFsync } from '../../src/jsonl/index';

const [name, root, fsync, kArg] = process.argv.slice(2) as [string, string, JsonlFsync, string];
const killAt = Number(kArg);
// The CommonJS `fs` object itself (an ESM default import is a copy under esbuild's interop):
// the storage's calls go through its properties.
const fs = createRequire(`${process.cwd()}/`)('node:fs') as typeof import('node:fs');
const say = (line: string): void => void fs.writeSync(1, `${line}\n`);

// Count the journal's records as they are written: the storage writes each record whole with
// writeSync (esbuild's CommonJS output reads `fs.writeSync` off the module at each call, so this wrapper sees them).
const realWrite = fs.writeSync;
let records = 0;
(fs as { writeSync: unknown }).writeSync = function patched(fd: number, ...rest: unknown[]): number {
  const n = (realWrite as (...a: unknown[]) => number)(fd, ...rest);
  // Asked at every write: descriptors are reused (the lock's owner file had this number before).
  let path = '';
  try {
    path = fs.readlinkSync(`/proc/self/fd/${fd}`);
  } catch {
    // not Linux: nothing is counted (the parent then sees children that were never killed)
  }
  const journal = /\/store\/journal-\d+\.jsonl$/.test(path);
  if (journal) {
    // The storage writes its reused Uint8Array (offset, length); a record ends with its newline.
    const buf = rest[0];
    const off = typeof rest[1] === 'number' ? rest[1] : 0;
    if (buf instanceof Uint8Array && n > 0 && buf[off + n - 1] === 10) {
      records++;
      if (records === killAt) process.kill(process.pid, 'SIGKILL');
    }
  }
  return n;
};

async function main(): Promise<void> {
  const w = workload(name);
  const { session, driver } = openJsonl(w, root, fsync);
  say(`ready ${session.lastSeq}`);
  for (const step of w.steps) {
    await step(driver);
    say(`ack ${session.lastSeq} ${records}`);
  }
  await settle();
  if (killAt < 0) {
    // k < 0: hold the directory (locked) until the parent closes stdin or kills this process.
    say(`held ${session.lastSeq} ${process.pid}`);
    process.stdin.on('data', () => undefined);
    await new Promise((r) => process.stdin.on('end', r));
  }
  say(`done ${session.lastSeq} ${records}`);
  session.dispose();
}

main().catch((e: unknown) => {
  say(`error ${String((e as Error)?.stack ?? e)}`);
  process.exit(2);
});
