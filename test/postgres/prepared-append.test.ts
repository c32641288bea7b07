// Issue 35: the append goes as a named prepared statement (parsed and planned once per
// connection), unless `preparedStatements: false` (a pooler that cannot carry named statements).
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createSharedSession, SharedLogError, type SharedSessionOptions } from '../../src/postgres/index';
import { NoteAdded, Notes } from '../fixtures';

const url = inject('databaseUrl');
const prefix = `rxt_prep_${randomUUID().replace(/-/g, '').slice(0, 10)}`;
let admin: pg.Pool;

beforeAll(() => {
  admin = new pg.Pool({ connectionString: url, max: 1 });
});

afterAll(async () => {
  for (const table of ['events', 'sessions', 'snapshots', 'schema_version']) await admin.query(`DROP TABLE IF EXISTS "${prefix}_${table}"`);
  await admin.end();
});

/**
 * Appends 5 events on a pool of 3 (two clients stay checked out: LISTEN and the lease, so every
 * append and read runs on the third), then lists the statements prepared on that third client.
 */
const preparedAfterAppends = async (extra: Partial<SharedSessionOptions>): Promise<{ names: string[]; seqs: number[] }> => {
  const pool = new pg.Pool({ connectionString: url, max: 3 });
  const session = await createSharedSession({ slices: [Notes], sessionId: randomUUID(), postgres: { pool }, tablePrefix: prefix, snapshotEvery: 0, ...extra });
  try {
    const seqs: number[] = [];
    for (let i = 0; i < 5; i++) seqs.push((await session.dispatch(NoteAdded({ id: i, text: `n${i}` }))).seq);
    const client = await pool.connect();
    try {
      const { rows } = await client.query<{ name: string }>('SELECT name FROM pg_prepared_statements ORDER BY name');
      return { names: rows.map((r) => r.name), seqs };
    } finally {
      client.release();
    }
  } finally {
    await session.dispose();
    await pool.end();
  }
};

describe('the append as a prepared statement (issue 35)', () => {
  it('is prepared once on the connection that appends, by default', async () => {
    const { names, seqs } = await preparedAfterAppends({});
    expect(seqs).toEqual([1, 2, 3, 4, 5]);
    expect(names.filter((n) => n.startsWith('rxslice_append_'))).toHaveLength(1);
  });

  it('is sent unprepared with preparedStatements: false', async () => {
    const { names, seqs } = await preparedAfterAppends({ preparedStatements: false });
    expect(seqs).toEqual([1, 2, 3, 4, 5]);
    expect(names).toEqual([]);
  });

  it('refuses a preparedStatements that is not a boolean', async () => {
    await expect(createSharedSession({ slices: [Notes], sessionId: 'x', postgres: { connectionString: url }, tablePrefix: prefix, preparedStatements: 'yes' as unknown as boolean })).rejects.toThrow(SharedLogError);
  });
});
