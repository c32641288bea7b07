// CommonJS run of the entry checks: every entry is loaded with `require` (the "require" condition).
// Started by check-entries.mjs inside a scratch directory holding the packed package.
'use strict';
const { checkEntries } = require('./entry-checks.cjs');

const options = JSON.parse(process.argv[2]); // { withOptionalPeers, entries, optionalPeers }
checkEntries(async (specifier) => require(specifier), { format: 'cjs', ...options }).then((failures) => {
  for (const f of failures) console.error(f);
  process.exitCode = failures.length === 0 ? 0 : 1;
});
