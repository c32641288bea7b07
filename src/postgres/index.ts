// Entry point rxslice/storage/postgres (Node only): sessions shared by several processes through
// an event log in PostgreSQL. `pg` is an optional peer dependency.
// Named re-exports only: this file is the entry's API at a glance.

export { createSharedSession } from './create-shared-session';
export type { SharedSession, SharedSessionOptions, SharedDispatchOptions, SharedCommit, SharedStartup, PostgresConnection } from './shared-session-types';
export { SharedLogError, SeqConflictError, SharedLogGapError } from './errors';
export { sharedTables, SCHEMA_VERSION } from './schema';
export type { SharedTables } from './schema';
