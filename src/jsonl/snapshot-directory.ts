import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { SliceDef } from '../slices/reducer';
import type { Snapshot } from '../snapshots/snapshot';
import { isStorableId, SnapshotStoreError, type SnapshotInfo, type SnapshotStoreBackend } from '../snapshot-store/store-contract';
import writeFileAtomic from 'write-file-atomic';
import { fsyncDirectory, loadSnapshot, saveSnapshot } from './snapshot-file';
import { clip } from '../internal/quote';

const SNAPSHOT = '.snapshot.json';
const INFO = '.info.json';

/**
 * A snapshot store backend on a directory (`createSnapshotStore({ storage: snapshotDirectory(dir,
 * { slices }) })`): each snapshot is `<id>.snapshot.json` written atomically by `saveSnapshot`
 * (temp file, fsync, rename, directory fsync), then its catalogue entry `<id>.info.json` the same
 * way, so a crash leaves either no entry or a complete one. Loading validates like
 * `loadSnapshot` (zod envelope, every item with its slice's schema, migrations), so files edited
 * or damaged outside the process fail closed. A snapshot file without its info (a crash between
 * the two writes) is listed from the snapshot itself.
 * @param dir - Created if missing.
 * @param options.slices - The slice definitions the stored snapshots may hold (for validation).
 * @example
 * ```ts
 * const store = createSnapshotStore({ storage: snapshotDirectory('.agent/snapshots', { slices: [Plan, Usage] }) });
 * ```
 */
export function snapshotDirectory(dir: string, options: { readonly slices: readonly SliceDef<string, any>[] }): SnapshotStoreBackend {
  mkdirSync(dir, { recursive: true });
  const path = (id: string, suffix: string): string => {
    if (!isStorableId(id)) throw new SnapshotStoreError('INVALID_SNAPSHOT_ID', `${clip(JSON.stringify(id))} is not a storable snapshot id`);
    return join(dir, `${id}${suffix}`);
  };
  const readInfo = (id: string): SnapshotInfo | undefined => {
    try {
      const info = JSON.parse(readFileSync(path(id, INFO), 'utf8')) as SnapshotInfo;
      return info.id === id ? info : undefined;
    } catch {
      return undefined;
    }
  };
  return {
    put: async (info, snapshot) => {
      await saveSnapshot(path(info.id, SNAPSHOT), snapshot);
      await writeFileAtomic(path(info.id, INFO), JSON.stringify(info), { fsync: true });
      fsyncDirectory(path(info.id, INFO));
    },
    get: async (id) => {
      const file = path(id, SNAPSHOT);
      return existsSync(file) ? loadSnapshot(file, options.slices) : undefined;
    },
    list: async () => {
      const infos: SnapshotInfo[] = [];
      for (const name of readdirSync(dir)) {
        if (!name.endsWith(SNAPSHOT)) continue;
        const id = name.slice(0, -SNAPSHOT.length);
        if (!isStorableId(id)) continue;
        let info = readInfo(id);
        if (info === undefined) {
          const s: Snapshot = loadSnapshot(path(id, SNAPSHOT), options.slices);
          info = { id, tag: s.tag, seq: s.seq, at: s.at, parents: s.parents, slices: Object.keys(s.slices), saved: 0 };
        }
        infos.push(info);
      }
      return infos;
    },
    delete: async (id) => {
      // The snapshot first: an info file left by a crash here is ignored (list reads snapshot files).
      rmSync(path(id, SNAPSHOT), { force: true });
      rmSync(path(id, INFO), { force: true });
      fsyncDirectory(path(id, SNAPSHOT));
    },
  };
}
