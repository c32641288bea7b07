// Backends, the memory model and the comparison of the seams matrix.
import { mkdirSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSession, memory, type CoreSession, type Event, type Session, type SliceDef } from '../../src/index';
import { jsonl, type JsonlFsync, type JsonlStorageFactory } from '../../src/jsonl/index';
import { snapshotDirectory } from '../../src/jsonl/snapshot-directory';
import { scanJournal } from '../../src/jsonl/journal-format';
import { memorySnapshots, type SnapshotStoreBackend } from '../../src/snapshot-store/index';
import { fixedClock, type Driver, type Workload } from './workloads';

/** What the matrix compares: the seq, every slice the session holds (library slices too) and the workload's extras. */
export interface Observed {
  readonly lastSeq: number;
  readonly slices: Record<string, unknown>;
  readonly extras: Record<string, unknown>;
}

export function observe(session: Pick<CoreSession, 'lastSeq' | 'snapshot'>, w: Workload, extrasOf: CoreSession | undefined = session as CoreSession): Observed {
  const snap = session.snapshot({ includeLogs: true });
  const slices: Record<string, unknown> = {};
  for (const name of Object.keys(snap.slices).sort()) slices[name] = snap.slices[name]?.items;
  const extras = extrasOf === undefined ? {} : (w.extras?.(extrasOf) ?? {});
  // An extra that reads nothing would compare as equal everywhere: refuse it.
  for (const [key, value] of Object.entries(extras)) if (value === undefined) throw new Error(`extra "${key}" of "${w.name}" is undefined`);
  return JSON.parse(stableIds(JSON.stringify({ lastSeq: session.lastSeq, slices, extras }))) as Observed;
}

/** Random ids (a saga started by an event gets a UUID) become `id-1`, `id-2`, ... by first appearance. */
export function stableIds(text: string): string {
  const ids = new Map<string, string>();
  return text.replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, (id) => {
    let name = ids.get(id);
    if (name === undefined) ids.set(id, (name = `id-${ids.size + 1}`));
    return name;
  });
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
const busy = (sagas: readonly unknown[]): boolean => sagas.some((p) => ['running', 'compensating'].includes((p as { phase?: string }).phase ?? ''));

/** Polls until no saga runs and `lastSeq()` stayed the same over 3 polls (at most 10 s). */
export async function quietly(read: () => { lastSeq: number; sagas: readonly unknown[] }, pollMs: number, catchUp?: () => Promise<unknown>): Promise<void> {
  const deadline = Date.now() + 10_000;
  let last = -1;
  let stable = 0;
  while (stable < 3) {
    if (Date.now() > deadline) throw new Error('the session did not become quiet within 10 s');
    await sleep(pollMs);
    await catchUp?.();
    const now = read();
    if (now.lastSeq === last && !busy(now.sagas)) stable++;
    else stable = 0;
    last = now.lastSeq;
  }
}

/** A driver over a local session; `sideDir` holds the snapshot store's files (else memory). */
export { sagasOf };

export function localDriver(session: Session, sideDir?: string): Driver {
  let memory: SnapshotStoreBackend | undefined;
  return {
    session,
    sideDir,
    dispatch: async (event: Event) => void session.dispatch(event),
    quiet: () => quietly(() => ({ lastSeq: session.lastSeq, sagas: sagasOf(session) }), 5),
    snapshotBackend: (slices: readonly SliceDef<string, any>[]) => (sideDir === undefined ? (memory ??= memorySnapshots()) : snapshotDirectory(sideDir, { slices })),
  };
}

const sagasOf = (s: { read(name: never): unknown }): readonly unknown[] => {
  try {
    return (s.read('rxslice/sagas' as never) as readonly unknown[]) ?? [];
  } catch {
    return []; // no saga slice in this session
  }
};

/** The memory model: the workload on a memory session, its observation after every committed seq. */
export interface Model {
  readonly session: Session;
  readonly driver: Driver;
  /** Observation after each seq (0: after setup), as JSON. */
  readonly states: Map<number, string>;
  /** Event types committed by the steps (and `after`, once run). */
  readonly committedTypes: ReadonlySet<string>;
  /** Runs the workload's `after` steps on the model. */
  after(): Promise<Observed>;
  readonly final: Observed;
}

export async function runModel(w: Workload): Promise<Model> {
  const session = createSession({ ...w.options(), scheduler: fixedClock() });
  w.setup?.(session);
  w.onLease?.(session);
  const states = new Map<number, string>();
  states.set(session.lastSeq, JSON.stringify(observe(session, w)));
  const committedTypes = new Set<string>();
  session.committed$.subscribe((c) => {
    committedTypes.add(c.event.type);
    states.set(session.lastSeq, JSON.stringify(observe(session, w)));
  });
  const driver = localDriver(session);
  for (const step of w.steps) await step(driver);
  await settle();
  const final = observe(session, w);
  return {
    session,
    driver,
    states,
    committedTypes,
    final,
    async after() {
      for (const step of w.after) await step(driver);
      await settle();
      return observe(session, w);
    },
  };
}

/** Lets queued follow-ups (effect lifecycle events, saga records) run. */
export const settle = (): Promise<void> => new Promise((r) => setTimeout(r, 5));

export const tempDir = (label: string): string => mkdtempSync(join(tmpdir(), `rxslice-seams-${label}-`));

export interface JsonlOpen {
  readonly session: Session;
  readonly factory: JsonlStorageFactory;
  readonly driver: Driver;
}

/** Opens the workload's session on a JSONL directory (`root/store`; the snapshot store in `root/snapshots`), or per policy. */
export function openJsonl(w: Workload, root: string, fsync: JsonlFsync, options: { perPolicy?: 'state' | 'log' } = {}): JsonlOpen {
  const factory = jsonl({ dir: join(root, 'store'), fsync, stale: 5000 });
  // perPolicy: only the slices of that policy on JSONL, the others in memory.
  const storage = options.perPolicy === undefined ? factory : options.perPolicy === 'state' ? { state: factory, log: memory() } : { state: memory(), log: factory };
  const session = createSession({ ...w.options(), scheduler: fixedClock(), storage });
  w.setup?.(session);
  w.onLease?.(session);
  mkdirSync(join(root, 'snapshots'), { recursive: true });
  return { session, factory, driver: localDriver(session, join(root, 'snapshots')) };
}

/** The journal records of a store directory (the current segment). */
export function journalOf(root: string): { file: string; records: { seq: number }[]; ends: number[] } {
  const dir = join(root, 'store');
  const files = readdirSync(dir);
  const baseSeq = Math.max(0, ...files.map((f) => /^base-(\d+)\.json$/.exec(f)).filter((m) => m !== null).map((m) => Number(m[1])));
  const file = join(dir, `journal-${baseSeq}.jsonl`);
  let buf: Buffer;
  try {
    buf = readFileSync(file);
  } catch {
    buf = Buffer.alloc(0);
  }
  const scan = scanJournal(buf, baseSeq);
  const ends: number[] = [];
  for (let i = 0; i < buf.length; i++) if (buf[i] === 10) ends.push(i + 1);
  return { file, records: scan.records as { seq: number }[], ends };
}

/**
 * Whether `got` equals the model after some prefix that includes seq `atLeast`; the message says
 * what differs (against the model at the reopened seq) when not. `ignoreSeq`: compare all but
 * `lastSeq` (a shared log numbers events a statechart refused; a local session does not).
 */
export function matchPrefix(model: Model, got: Observed, atLeast: number, options: { ignoreSeq?: boolean } = {}): { ok: true; seq: number } | { ok: false; why: string } {
  const text = JSON.stringify(got);
  for (const [seq, state] of model.states) if (seq >= atLeast && state === text) return { ok: true, seq };
  if (options.ignoreSeq === true) {
    const noSeq = JSON.stringify({ ...got, lastSeq: 0 });
    for (const [seq, state] of model.states) if (seq >= atLeast && JSON.stringify({ ...JSON.parse(state), lastSeq: 0 }) === noSeq) return { ok: true, seq };
  }
  const same = [...model.states].filter(([, s]) => JSON.stringify({ ...JSON.parse(s), lastSeq: 0 }) === JSON.stringify({ ...got, lastSeq: 0 })).map(([seq]) => seq);
  const atSeq = model.states.get(got.lastSeq);
  return {
    ok: false,
    why:
      `reopened at lastSeq ${got.lastSeq} (acknowledged ${atLeast}); ` +
      (same.length > 0 ? `its slices equal the model after seq ${same.join(', ')}` : `no model prefix has its slices; reopened ${text}; model at that seq ${atSeq ?? '(none)'}`),
  };
}
