import { fileURLToPath } from 'node:url';
import { describe, expect, inject, it } from 'vitest';
import { runSharedAgents } from '../../examples/shared-agents/main';

const transcript = fileURLToPath(new URL('../../examples/data/spotter-4d5611e5-241a-462a-8d15-5122611a9569.jsonl', import.meta.url));

describe('examples/shared-agents', () => {
  it('two agent processes work off a plan made from a real transcript: every step once, by one agent, with all its tools', async () => {
    const result = await runSharedAgents(inject('databaseUrl'), transcript, 'rxslice_example_test');
    expect(result.toolCalls).toBe(150);
    expect(result.steps).toBe(38);
    expect(result.verifiedSteps).toBe(38);
    expect(result.agents.map((a) => a.agent)).toEqual(['agent-a', 'agent-b']);
    expect(result.agents.reduce((n, a) => n + a.steps, 0)).toBe(38);
    expect(result.agents.reduce((n, a) => n + a.tools, 0)).toBe(150);
    // 38 plans + 38 claims + 150 tools + 38 done: refused claims append nothing.
    expect(result.lastSeq).toBe(38 * 3 + 150);
  }, 120_000);
});
