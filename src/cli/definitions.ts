import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { readRecordingHeader } from '../storage/jsonl/read-recording';
import type { InspectorDefinitions } from '../devtools/inspector-model';
import { TRANSCRIPT_LABEL, transcriptDefinitions } from '../transcripts/durable';

/** A recording the command line cannot read without being told its slice definitions. */
export class DefinitionsError extends Error {
  override readonly name = 'DefinitionsError';
}

/**
 * The slice definitions (and replay session, and statecharts) to read `file` with:
 * `--session <module>` when given (its exports `slices`, and optionally `session(scheduler)` and
 * `machines`), else the transcript definitions for a recording labelled `rxslice.transcript`
 * (what `rxslice replay --record` writes).
 * @throws `RecordingError` when the file is not a readable recording; {@link DefinitionsError}
 * when no definitions fit or the module does not export `slices`.
 */
export async function definitionsFor(file: string, sessionModule: string | undefined, cwd: string): Promise<InspectorDefinitions> {
  const header = readRecordingHeader(file);
  if (sessionModule !== undefined) {
    const url = pathToFileURL(path.resolve(cwd, sessionModule)).href;
    let mod: Partial<InspectorDefinitions> & { default?: Partial<InspectorDefinitions> };
    try {
      mod = (await import(url)) as typeof mod;
    } catch (e) {
      throw new DefinitionsError(`cannot load --session module "${sessionModule}": ${e instanceof Error ? e.message : String(e)}`);
    }
    const defs = Array.isArray(mod.slices) ? mod : mod.default;
    if (defs === undefined || !Array.isArray(defs.slices)) {
      throw new DefinitionsError(`--session module "${sessionModule}" must export \`slices\` (the recorded session's slice definitions), and may export \`session\` (scheduler) => Session and \`machines\``);
    }
    return {
      slices: defs.slices,
      ...(typeof defs.session === 'function' ? { session: defs.session } : {}),
      ...(Array.isArray(defs.machines) ? { machines: defs.machines } : {}),
    };
  }
  if (header.label === TRANSCRIPT_LABEL) return transcriptDefinitions();
  throw new DefinitionsError(
    `${file} was recorded ${header.label === undefined ? 'without a label' : `with label "${header.label}"`}, so its slice definitions are unknown: ` +
      'pass --session <module>, a module exporting `slices` (and optionally `session` and `machines`)',
  );
}
