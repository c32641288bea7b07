/**
 * The seed's execution state ("Stateless Reducer Pattern Design"): a frozen state changed only by
 * partial updates, with per-field reducers so that parallel writers never lose an update, and
 * the seed's helper functions that build those updates. `fromTranscript` maps a Claude Code
 * transcript's events (src/transcripts) to updates, so a real session replays through it.
 */
import { z } from 'zod';
import { add, defineState, dictMerge, field, setUnion, type StateUpdate } from '../../src/index';
import type { Event } from '../../src/index';
import { AssistantMessageAdded, ToolCalled, ToolFailed, ToolSucceeded, SubagentStarted } from '../../src/transcripts/events';

export const ToolCall = z.object({ id: z.string(), tool: z.string(), at: z.string().nullable() });
export const DriverSession = z.object({ subagentType: z.string(), description: z.string() });
export const TokenMetrics = z.object({ totalInput: z.number(), totalOutput: z.number(), byAgent: z.record(z.string(), z.number()) });
export type TokenMetrics = z.infer<typeof TokenMetrics>;

/** Sums token counts, per agent too: commutative, so concurrent writers merge in any order. */
export const tokenMerge = (a: TokenMetrics, b: TokenMetrics): TokenMetrics => {
  const byAgent = { ...a.byAgent };
  for (const [agent, n] of Object.entries(b.byAgent)) byAgent[agent] = (byAgent[agent] ?? 0) + n;
  return { totalInput: a.totalInput + b.totalInput, totalOutput: a.totalOutput + b.totalOutput, byAgent };
};

export const Execution = defineState('execution', {
  profileId: field(z.string(), { default: '' }), // single writer: replay determinism
  toolCalls: field(z.array(ToolCall), { reducer: add, default: [] }),
  toolResults: field(z.record(z.string(), z.enum(['ok', 'error'])), { reducer: dictMerge, default: {} }),
  driverSessions: field(z.record(z.string(), DriverSession), { reducer: dictMerge, default: {} }),
  completedSteps: field(z.array(z.string()), { reducer: setUnion, default: [] }),
  tokenMetrics: field(TokenMetrics, { reducer: tokenMerge, default: { totalInput: 0, totalOutput: 0, byAgent: {} } }),
  status: field(z.enum(['running', 'completed', 'failed']), { default: 'running' }),
  error: field(z.string().nullable(), { default: null }),
});
export type ExecutionUpdate = StateUpdate<typeof Execution.fields>;

// The seed's helpers: each returns one partial update.
export const toolCalled = (id: string, tool: string, at: string | null): ExecutionUpdate => ({ toolCalls: [{ id, tool, at }] });
export const toolCompleted = (id: string, ok: boolean): ExecutionUpdate => ({ toolResults: { [id]: ok ? 'ok' : 'error' }, completedSteps: [id] });
export const setDriverSession = (id: string, session: z.infer<typeof DriverSession>): ExecutionUpdate => ({ driverSessions: { [id]: session } });
export const tokensUsed = (agent: string, input: number, output: number): ExecutionUpdate => ({
  tokenMetrics: { totalInput: input, totalOutput: output, byAgent: { [agent]: input + output } },
});
export const executionCompleted = (): ExecutionUpdate => ({ status: 'completed' });
export const executionFailed = (error: string): ExecutionUpdate => ({ status: 'failed', error });

/**
 * The updates a transcript's events make, in order: tool calls and results, subagents as driver
 * sessions, and token usage per model, counted once per API response (the lines of one response
 * repeat its usage, so each line adds only what grew since the previous line of that response).
 */
export function fromTranscript(events: readonly Event[]): ExecutionUpdate[] {
  const updates: ExecutionUpdate[] = [];
  const seen = new Map<string, { input: number; output: number }>();
  for (const e of events) {
    if (ToolCalled.match(e)) updates.push(toolCalled(e.payload.toolUseId, e.payload.name, e.payload.timestamp));
    else if (ToolSucceeded.match(e)) updates.push(toolCompleted(e.payload.toolUseId, true));
    else if (ToolFailed.match(e)) updates.push(toolCompleted(e.payload.toolUseId, false));
    else if (SubagentStarted.match(e)) updates.push(setDriverSession(e.payload.toolUseId, { subagentType: e.payload.subagentType, description: e.payload.description }));
    else if (AssistantMessageAdded.match(e) && e.payload.usage !== null) {
      const before = seen.get(e.payload.messageId) ?? { input: 0, output: 0 };
      const now = { input: e.payload.usage.input + e.payload.usage.cacheCreation + e.payload.usage.cacheRead, output: e.payload.usage.output };
      seen.set(e.payload.messageId, { input: Math.max(before.input, now.input), output: Math.max(before.output, now.output) });
      const dIn = Math.max(0, now.input - before.input);
      const dOut = Math.max(0, now.output - before.output);
      if (dIn > 0 || dOut > 0) updates.push(tokensUsed(e.payload.model, dIn, dOut));
    }
  }
  return updates;
}
