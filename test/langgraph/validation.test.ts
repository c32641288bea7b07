// LangGraph's own checkpointer conformance suite (@langchain/langgraph-checkpoint-validation),
// run against RxSliceSaver on memory storage and on checkpointFiles (fsync off: the suite checks
// the contract, the crash suites check durability).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { deltaChannelHistoryTests, validate } from '@langchain/langgraph-checkpoint-validation';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { RxSliceSaver, type LangGraphRecord } from '../../src/langgraph/index';
import { checkpointFiles } from '../../src/jsonl/index';

// The suite is written for Jest-style globals (this project runs vitest without globals).
Object.assign(globalThis, { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it });

const dirs: string[] = [];

const memory = {
  checkpointerName: 'RxSliceSaver (memory)',
  createCheckpointer: () => new RxSliceSaver(),
};
const files = {
  checkpointerName: 'RxSliceSaver (checkpointFiles)',
  createCheckpointer: () => {
    const dir = mkdtempSync(join(tmpdir(), 'rxslice-langgraph-'));
    dirs.push(dir);
    return new RxSliceSaver({ storage: checkpointFiles<LangGraphRecord>(dir, { fsync: false }) });
  },
  afterAll: () => {
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  },
};

validate(memory);
deltaChannelHistoryTests(memory);
validate(files);
deltaChannelHistoryTests(files);
