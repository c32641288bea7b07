// ESM run of the entry checks: every entry is loaded with `import` (the "import" condition).
// Started by check-entries.mjs inside a scratch directory holding the packed package.
import { checkEntries } from './entry-checks.cjs';

const options = JSON.parse(process.argv[2]); // { withOptionalPeers, entries, optionalPeers }
const failures = await checkEntries((specifier) => import(specifier), { format: 'esm', ...options });
for (const f of failures) console.error(f);
process.exitCode = failures.length === 0 ? 0 : 1;
