// @internal The file names of a signal directory: what orders signals and who holds a claim.
//
//   <dir>/<source>-<time>-<seq>-<pid>-<publisher>.json        a pending signal (its id is the name without .json)
//   <dir>/claimed/<id>~<claimedAtMs>~<pid>~<host>~<claim>.json a claimed one: one rename carries the owner
//   <dir>/processed/<id>.json                                 archived once its handler finished
//   <dir>/rejected/<name>~<rand>  (+ .reason.json)            a bad file, set aside as it was
//
// <time> is UTC `YYYYMMDDTHHMMSSmmmZ` (fixed width, so it sorts as text), <seq> a per-publisher
// counter (fixed width), <pid> the publishing process, <publisher> 8 hex digits random per
// publisher. The order of signals is (time, seq, pid, publisher, source): total, and stable
// because every part is in the name.
import { randomBytes } from 'node:crypto';

const SIGNAL = /^([A-Za-z0-9][A-Za-z0-9._-]{0,63})-(\d{8}T\d{9}Z)-(\d{8,})-(\d+)-([0-9a-f]{8})\.json$/;
const CLAIM = /^([^~]+)~(\d+)~(\d+)~([^~]*)~([0-9a-f]{8}-\d+)\.json$/;
/** A write-file-atomic temp file (`<target>.<uint32>`) or any `.tmp` file. */
const TEMP = /(\.json\.\d+|\.tmp)$/;

export interface SignalName {
  readonly id: string;
  readonly source: string;
  /** UTC `YYYYMMDDTHHMMSSmmmZ`. */
  readonly time: string;
  readonly seq: number;
  readonly pid: number;
  readonly publisher: string;
}

/**
 * The process's publishing clock: the stamp (ms, never going back although the wall clock may)
 * and sequence number of its next signal, shared by every signal directory of the process, so
 * that one process's signals keep their publish order across directory objects (the pattern's
 * free functions open one per call). Module-level on purpose: like the pid, it is a property of
 * the process, not a registry; nothing else is kept here.
 */
const processClock = { lastMs: 0, seq: 0 };

export function nextStamp(): { readonly ms: number; readonly seq: number } {
  processClock.lastMs = Math.max(Date.now(), processClock.lastMs);
  return { ms: processClock.lastMs, seq: ++processClock.seq };
}

export const randomHex = (): string => randomBytes(4).toString('hex');

export function signalTime(ms: number): string {
  const iso = new Date(ms).toISOString(); // 2026-11-28T09:32:46.123Z
  return `${iso.slice(0, 4)}${iso.slice(5, 7)}${iso.slice(8, 10)}T${iso.slice(11, 13)}${iso.slice(14, 16)}${iso.slice(17, 19)}${iso.slice(20, 23)}Z`;
}

export function timeToMs(time: string): number {
  return Date.parse(`${time.slice(0, 4)}-${time.slice(4, 6)}-${time.slice(6, 8)}T${time.slice(9, 11)}:${time.slice(11, 13)}:${time.slice(13, 15)}.${time.slice(15, 18)}Z`);
}

export function formatSignalName(source: string, ms: number, seq: number, publisher: string): string {
  return `${source}-${signalTime(ms)}-${String(seq).padStart(8, '0')}-${process.pid}-${publisher}.json`;
}

export function parseSignalName(file: string): SignalName | undefined {
  const m = SIGNAL.exec(file);
  if (m === null) return undefined;
  return { id: file.slice(0, -'.json'.length), source: m[1] as string, time: m[2] as string, seq: Number(m[3]), pid: Number(m[4]), publisher: m[5] as string };
}

export function compareSignalNames(a: SignalName, b: SignalName): number {
  if (a.time !== b.time) return a.time < b.time ? -1 : 1;
  if (a.seq !== b.seq) return a.seq - b.seq;
  if (a.pid !== b.pid) return a.pid - b.pid;
  if (a.publisher !== b.publisher) return a.publisher < b.publisher ? -1 : 1;
  return a.source < b.source ? -1 : a.source > b.source ? 1 : 0;
}

export const isTempFile = (file: string): boolean => TEMP.test(file);

/** A host name as it goes into a claim's file name (no `~`, no path separators). */
export const safeHost = (host: string): string => host.replace(/[^A-Za-z0-9.-]/g, '_');

export interface ClaimName {
  readonly id: string;
  readonly claimedAtMs: number;
  readonly pid: number;
  readonly host: string;
  /** `<claimer>-<n>`: the claimer's random id and its claim counter. */
  readonly token: string;
}

export const formatClaimName = (c: ClaimName): string => `${c.id}~${c.claimedAtMs}~${c.pid}~${c.host}~${c.token}.json`;

export function parseClaimName(file: string): ClaimName | undefined {
  const m = CLAIM.exec(file);
  if (m === null) return undefined;
  return { id: m[1] as string, claimedAtMs: Number(m[2]), pid: Number(m[3]), host: m[4] as string, token: m[5] as string };
}

/** True when process `pid` provably does not exist on this host (EPERM: it exists, owned by another user). */
export function isDeadProcess(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return false;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'ESRCH';
  }
}
