#!/usr/bin/env node
// The `rxslice` command. In a checkout of the repository (src/ present, tsx installed) it runs
// the sources, so `npx rxslice` works without a build; an installed package runs dist/.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const src = fileURLToPath(new URL('../src/cli/main.ts', import.meta.url));
let cli;
let tsx;
if (existsSync(src)) {
  try {
    tsx = await import('tsx/esm/api');
  } catch {
    // A checkout without its dev dependencies: the built files, if any.
  }
}
if (tsx !== undefined) cli = await tsx.tsImport(src, import.meta.url);
else cli = await import('../dist/cli/main.js');
await cli.main();
