import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { readRecordingHeader } from '../jsonl/recording-header';
import type { InspectorDefinitions } from '../devtools/inspector-types';
import { TRANSCRIPT_LABEL, transcriptDefinitions } from '../transcripts/durable';
import { messageOf, quote } from '../internal/quote';

/** A recording the command line cannot read without being told its slice definitions. */
export class DefinitionsError extends Error {
  override readonly name = 'DefinitionsError';
}

/** Extensions of TypeScript modules, loaded through tsx (Node cannot import them by itself). */
const TYPESCRIPT = /\.(ts|mts|cts|tsx)$/;

/** What `import('tsx/esm/api')` gives: `tsImport(specifier, parentURL)` loads a TypeScript module (and what it imports) without registering tsx globally. */
interface TsxApi {
  tsImport(specifier: string, parentURL: string): Promise<unknown>;
}

/**
 * Imports the `--session` module at `file` (absolute): a `.js`/`.mjs`/`.cjs` module with Node's
 * `import()`, a `.ts`/`.mts`/`.cts`/`.tsx` module through the optional peer `tsx`
 * (`tsImport` of `tsx/esm/api`, so it may import other TypeScript files and packages from its
 * own directory, and nothing is registered for the rest of the process).
 * @throws {@link DefinitionsError} when the module cannot be loaded, or is TypeScript and `tsx`
 * is not installed (the message says to install it or compile the module).
 */
async function loadModule(file: string, given: string): Promise<unknown> {
  const url = pathToFileURL(file).href;
  const cannot = (e: unknown) => new DefinitionsError(`cannot load --session module ${quote(given)}: ${messageOf(e)}`);
  if (!TYPESCRIPT.test(file)) {
    try {
      return await import(url);
    } catch (e) {
      throw cannot(e);
    }
  }
  let tsx: TsxApi;
  try {
    tsx = (await import('tsx/esm/api')) as TsxApi;
  } catch {
    throw new DefinitionsError(
      `--session module ${quote(given)} is TypeScript, and loading it needs the package tsx, which is not installed: ` +
        'run `npm i -D tsx` beside rxslice, or compile the module to JavaScript and pass the .js file',
    );
  }
  try {
    return await tsx.tsImport(url, url);
  } catch (e) {
    throw cannot(e);
  }
}

/**
 * The slice definitions (and replay session, and statecharts) to read `file` with:
 * `--session <module>` when given (its exports `slices`, and optionally `session(scheduler)` and
 * `machines`; a TypeScript module is loaded through the optional peer `tsx`), else the transcript definitions for a recording labelled `rxslice.transcript`
 * (what `rxslice replay --record` writes).
 * @throws `RecordingError` when the file is not a readable recording; {@link DefinitionsError}
 * when no definitions fit or the module does not export `slices`.
 */
export async function definitionsFor(file: string, sessionModule: string | undefined, cwd: string): Promise<InspectorDefinitions> {
  const header = readRecordingHeader(file);
  if (sessionModule !== undefined) {
    const mod = (await loadModule(path.resolve(cwd, sessionModule), sessionModule)) as Partial<InspectorDefinitions> & { default?: Partial<InspectorDefinitions> };
    const defs = Array.isArray(mod.slices) ? mod : mod.default;
    if (defs === undefined || !Array.isArray(defs.slices)) {
      throw new DefinitionsError(`--session module ${quote(sessionModule)} must export \`slices\` (the recorded session's slice definitions), and may export \`session\` (scheduler) => Session and \`machines\``);
    }
    return {
      slices: defs.slices,
      ...(typeof defs.session === 'function' ? { session: defs.session } : {}),
      ...(Array.isArray(defs.machines) ? { machines: defs.machines } : {}),
    };
  }
  if (header.label === TRANSCRIPT_LABEL) return transcriptDefinitions();
  throw new DefinitionsError(
    `${file} was recorded ${header.label === undefined ? 'without a label' : `with label ${quote(header.label)}`}, so its slice definitions are unknown: ` +
      'pass --session <module>, a module exporting `slices` (and optionally `session` and `machines`)',
  );
}
