import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { defineSignalChannel } from '../../../src/jsonl/index';

/** A channel of numbered signals: `n` says in which order the test published them. */
export const Numbered = defineSignalChannel('numbered', z.object({ n: z.number().int(), by: z.string() }));

/** A new empty directory for one test's signals (the signal folder itself does not exist yet). */
export const signalDir = (): string => join(mkdtempSync(join(tmpdir(), 'rxslice-signals-')), 'signals');
