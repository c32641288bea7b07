import fc from 'fast-check';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { createSession } from '../../src/index';
import { parseTranscript, splitLines } from '../../src/transcripts/parse';
import { ToolCalled, ToolFailed, ToolSucceeded } from '../../src/transcripts/events';
import { Execution, executionCompleted, executionFailed, fromTranscript, type ExecutionUpdate } from './execution';

const data = join(fileURLToPath(new URL('.', import.meta.url)), '..', 'data');
const events = parseTranscript(splitLines(readFileSync(join(data, 'spotter-ae4a77f8-aedd-4bc1-888f-c94edc91af04.jsonl'), 'utf8'))).events;
const updates = fromTranscript(events);

describe('execution state over a real transcript', () => {
  it('replays the transcript: every tool call and result recorded, tokens counted once per response', () => {
    const session = createSession({ slices: [Execution] });
    for (const u of updates) session.dispatch(Execution.update(u));
    session.dispatch(Execution.update(executionCompleted()));
    const state = session.slice(Execution).latest()!;
    expect(state.toolCalls.map((c) => c.id)).toEqual(events.filter((e) => ToolCalled.match(e)).map((e) => (e.payload as { toolUseId: string }).toolUseId));
    const results = events.filter((e) => ToolSucceeded.match(e) || ToolFailed.match(e));
    expect(Object.keys(state.toolResults).length).toBe(new Set(results.map((e) => (e.payload as { toolUseId: string }).toolUseId)).size);
    expect(state.toolCalls.length).toBeGreaterThan(0);
    expect(state.tokenMetrics.totalOutput).toBeGreaterThan(0);
    expect(Object.values(state.tokenMetrics.byAgent).reduce((a, b) => a + b, 0)).toBe(state.tokenMetrics.totalInput + state.tokenMetrics.totalOutput);
    expect(state.status).toBe('completed');
    // A single-writer field: completed and failed in one step conflict.
    expect(() => Execution.updateMany([executionCompleted(), executionFailed('x')])).toThrow(expect.objectContaining({ code: 'INVALID_UPDATE' }));
  });

  it('two writers (tool events and token usage) interleaved in any order, or in shared steps, give the same state (property)', () => {
    const isTokens = (u: ExecutionUpdate) => u.tokenMetrics !== undefined;
    const toolWriter = updates.filter((u) => !isTokens(u));
    const usageWriter = updates.filter(isTokens);
    const run = (order: readonly boolean[], together: boolean) => {
      const session = createSession({ slices: [Execution] });
      const a = [...toolWriter];
      const b = [...usageWriter];
      for (const pick of order) {
        if (a.length === 0 && b.length === 0) break;
        if (together && a.length > 0 && b.length > 0) session.dispatch(Execution.updateMany([a.shift()!, b.shift()!]));
        else session.dispatch(Execution.update((pick && a.length > 0) || b.length === 0 ? a.shift()! : b.shift()!));
      }
      for (const u of [...a, ...b]) session.dispatch(Execution.update(u));
      return session.slice(Execution).latest()!;
    };
    const reference = run([], false);
    fc.assert(
      fc.property(fc.array(fc.boolean(), { maxLength: updates.length }), fc.boolean(), (order, together) => {
        expect(run(order, together)).toEqual(reference);
      }),
      { numRuns: 10 },
    );
  });
});
