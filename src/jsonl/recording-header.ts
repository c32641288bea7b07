import { closeSync, openSync, readSync } from 'node:fs';
import { BODY_OFFSET, crcOf, lineCrc, RECORDING_FORMAT, RECORDING_FORMAT_VERSION } from './recording-format';
import { RecordingError } from './recording-types';

/** What a recording's first line says about it. See {@link readRecordingHeader}. */
export interface RecordingHeader {
  readonly formatVersion: number;
  /** The recorder's `snapshotEvery`. */
  readonly snapshotEvery: number;
  /** The recorder's `label`, if it had one. */
  readonly label: string | undefined;
}

/**
 * Reads only the header (first line) of a flight recording: its format version, `snapshotEvery`
 * and `label`. Tools use it to pick the slice definitions before {@link readRecording}.
 * Reads at most the first 64 KiB; O(1) in the recording's size.
 * @throws {@link RecordingError} `RECORDING_NOT_FOUND`, `RECORDING_IO`, or `RECORDING_CORRUPT`
 * (no header line, a bad checksum, another format, or a newer format version).
 * @example
 * ```ts
 * readRecordingHeader('run.jsonl'); // { formatVersion: 2, snapshotEvery: 1000, label: 'rxslice.transcript' }
 * ```
 */
export function readRecordingHeader(file: string): RecordingHeader {
  const buf = Buffer.alloc(65536);
  let n = 0;
  let fd: number | undefined;
  try {
    fd = openSync(file, 'r');
    n = readSync(fd, buf, 0, buf.length, 0);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code === 'ENOENT' ? 'RECORDING_NOT_FOUND' : 'RECORDING_IO';
    throw new RecordingError(file, code, code === 'RECORDING_NOT_FOUND' ? 'no such file.' : (e as Error).message, { cause: e });
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
  const nl = buf.subarray(0, n).indexOf(10);
  const crc = nl < 0 ? -1 : lineCrc(buf, 0);
  if (nl < 0 || crc < 0 || crc !== crcOf(buf, BODY_OFFSET, nl - 1)) {
    throw new RecordingError(file, 'RECORDING_CORRUPT', 'it does not start with a checksummed recording header; is it a flight recording?');
  }
  return parseHeader(file, buf.toString('utf8', BODY_OFFSET, nl - 1));
}

/** Parses a recording's header line (its JSON body), checking its format and version. */
export function parseHeader(file: string, body: string): RecordingHeader {
  let header: { k?: unknown; format?: unknown; formatVersion?: unknown; snapshotEvery?: unknown; label?: unknown };
  try {
    header = JSON.parse(body) as typeof header;
  } catch {
    throw new RecordingError(file, 'RECORDING_CORRUPT', 'its header is not JSON.');
  }
  if (header === null || typeof header !== 'object' || header.k !== 'h') {
    throw new RecordingError(file, 'RECORDING_CORRUPT', 'it does not start with a recording header; is it a flight recording?');
  }
  if (header.format !== RECORDING_FORMAT) throw new RecordingError(file, 'RECORDING_CORRUPT', `its header names format ${JSON.stringify(header.format)}, not ${RECORDING_FORMAT}.`);
  if (typeof header.formatVersion !== 'number' || header.formatVersion > RECORDING_FORMAT_VERSION) {
    throw new RecordingError(file, 'RECORDING_CORRUPT', `it has format version ${String(header.formatVersion)}, newer than this rxslice reads (${RECORDING_FORMAT_VERSION}); upgrade rxslice.`);
  }
  return {
    formatVersion: header.formatVersion,
    snapshotEvery: typeof header.snapshotEvery === 'number' ? header.snapshotEvery : 0,
    label: typeof header.label === 'string' ? header.label : undefined,
  };
}
