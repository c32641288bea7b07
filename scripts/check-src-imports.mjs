// `npm run cycles` (second step): the library's sources import only each other and packages.
//
// Every relative import, export-from, dynamic `import('./...')` and `require('./...')` in a
// .ts/.mts/.cts file under <root>/src must resolve inside <root>/src: examples/, test/, bench/
// and scripts/ sit on top of the library, so an arrow from src/ to them would ship example or test
// code as product (issue 24: the command line was once built from examples/agent-transcript).
//
// Usage: node scripts/check-src-imports.mjs [root]   (root defaults to the repository)
// Exit code 0 and one summary line when clean; 1 with one line per offending import otherwise.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(process.argv[2] ?? join(dirname(fileURLToPath(import.meta.url)), '..'));
const src = join(root, 'src');
const files = readdirSync(src, { recursive: true })
  .map(String)
  .filter((f) => /\.(m|c)?ts$/.test(f))
  .map((f) => join(src, f));

// Specifiers in static imports/exports (`from '...'`, `import '...'`) and in import()/require() calls.
const SPECIFIER = /(?:\bfrom\s*|\bimport\s*\(?\s*|\brequire\s*\(\s*)(['"])(\.{1,2}\/[^'"]*)\1/g;
const problems = [];
for (const file of files) {
  const text = readFileSync(file, 'utf8');
  for (const match of text.matchAll(SPECIFIER)) {
    const target = resolve(dirname(file), match[2]);
    if (target !== src && !target.startsWith(src + sep)) {
      const line = text.slice(0, match.index).split('\n').length;
      problems.push(`${relative(root, file)}:${line} imports "${match[2]}" (${relative(root, target)}), outside src/`);
    }
  }
}
if (problems.length > 0) {
  console.error(`check-src-imports: src/ must import only src/ and packages; move what it needs into src/ (as src/transcripts/ was):\n- ${problems.join('\n- ')}`);
  process.exit(1);
}
console.log(`check-src-imports: ${files.length} files under src/ import nothing outside it`);
