// Child process of the catch-up kill test (bundled by the test with esbuild): a WatchedTranscript
// catching up on argv[2] into the durable store argv[3], in runs of 256 lines as `rxslice watch`
// pumps. Prints `open <offset> <committed>` once the store is open (`committed`: the transcript
// events of the lines from the cursor on that it found committed) and `done <lines> <bytes>` at the
// end (`bytes`: what it wrote to files). With argv[4] = N it stops as a crash in the middle of a
// write would: the write that reaches the N-th byte written to files is cut there, and the process
// SIGKILLs itself.
import fs from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import { committedInRun } from '../../src/watch/watch-cursor';
import { WatchedTranscript } from '../../src/watch/watched-transcript';

const [file, storeDir, tearArg] = process.argv.slice(2) as [string, string, string | undefined];
const tearAt = tearArg === undefined ? Infinity : Number(tearArg);
let written = 0;
const writeSync = fs.writeSync;
const out = (text: string): void => void writeSync(1, text);
fs.writeSync = function (fd: number, data: string | NodeJS.ArrayBufferView, ...rest: unknown[]): number {
  if (fd <= 2) return (writeSync as (...args: unknown[]) => number)(fd, data, ...rest);
  const bytes = typeof data === 'string' ? Buffer.byteLength(data) : ((rest[1] as number | undefined) ?? data.byteLength - ((rest[0] as number | undefined) ?? 0));
  if (written + bytes >= tearAt) {
    const keep = tearAt - written;
    const buffer = typeof data === 'string' ? Buffer.from(data) : Buffer.from(data.buffer, data.byteOffset + ((rest[0] as number | undefined) ?? 0), bytes);
    if (keep > 0) writeSync(fd, buffer, 0, keep);
    process.kill(process.pid, 'SIGKILL');
  }
  written += bytes;
  return (writeSync as (...args: unknown[]) => number)(fd, data, ...rest);
} as typeof fs.writeSync;
syncBuiltinESMExports();

const watched = new WatchedTranscript({ file, label: 't', storeDir });
const cursor = watched.cursor;
out(`open ${cursor.offset} ${committedInRun(cursor, watched.current.lastSeq)}\n`);
let lines = 0;
do lines += watched.pump(256).lines;
while (watched.backlogLines > 0);
watched.close();
out(`done ${lines} ${written}\n`);
