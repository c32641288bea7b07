// Child process of the crash suite: opens a durable session on argv[2] (argv[5] 'store': a
// `createStore` store instead of a `createSession` session) and dispatches Tick events until it is
// killed, printing `ack <seq>` (synchronously, on a pipe) after every 8th commit.
// Prints `ready <pid>` once open, or `locked <holder pid>` and exits 3 when another process holds the directory.
import { writeSync } from 'node:fs';
import { createSession, createStore } from '../../../src/index';
import { jsonl, type JsonlFsync } from '../../../src/jsonl/index';
import { CRASH_SLICES, Tick } from './crash-slices';

const [dir, fsync, compactBytes, factory] = process.argv.slice(2) as [string, JsonlFsync, string, 'session' | 'store' | undefined];
const open = factory === 'store' ? createStore : createSession;
let session;
try {
  session = open({ slices: CRASH_SLICES, storage: jsonl({ dir, fsync, compactBytes: Number(compactBytes), stale: 5000 }), validation: 'off' });
} catch (e) {
  const error = e as { code?: string; holder?: { pid: number } };
  if (error.code === 'STORAGE_LOCKED') {
    writeSync(1, `locked ${error.holder?.pid ?? '?'}\n`);
    process.exit(3);
  }
  writeSync(1, `error ${String(e)}\n`);
  process.exit(2);
}
writeSync(1, `ready ${process.pid} ${session.lastSeq}\n`);
for (;;) {
  const env = session.dispatch(Tick({ n: session.lastSeq + 1 }));
  if (env.seq % 8 === 0) writeSync(1, `ack ${env.seq}\n`);
}
