import type { TestProject } from 'vitest/node';
import { findServer } from '../../scripts/postgres-server';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The PostgreSQL server of the shared-session tests (see scripts/postgres-server.ts for the order it is found in). */
    databaseUrl: string;
    databaseSource: string;
  }
}

let stop: (() => Promise<void>) | undefined;

export async function setup(project: TestProject): Promise<void> {
  const server = await findServer();
  stop = server.stop;
  project.provide('databaseUrl', server.url);
  project.provide('databaseSource', server.source);
  // Child processes (the README's runnable blocks, examples) find the same server.
  process.env['DATABASE_URL'] = server.url;
}

export async function teardown(): Promise<void> {
  await stop?.();
}
