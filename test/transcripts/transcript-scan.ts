/**
 * An independent plain JSON scan of a Claude Code transcript (no zod, no session, no code of
 * the example), to check the example's numbers against.
 */

/** Calls and error results of one tool. */
export interface ScannedTool {
  calls: number;
  errors: number;
}

export interface TranscriptScan {
  /** `tool_use` blocks in any line's `message.content`. */
  readonly toolUse: number;
  /** `tool_result` blocks with `is_error: true`. */
  readonly errors: number;
  /** Per tool name (from the `tool_use` block with the result's `tool_use_id`). */
  readonly byTool: ReadonlyMap<string, ScannedTool>;
  /** `tool_use_id` of every error result, in file order. */
  readonly failedIds: readonly string[];
  /** Distinct `message.id` of assistant lines with usage. */
  readonly responses: number;
  /** Runs of consecutive assistant lines sharing a `message.id`. */
  readonly runs: number;
  /** Token sums: each `message.id` counted once, with the usage of its last line. */
  readonly tokens: { readonly input: number; readonly output: number; readonly cacheCreation: number; readonly cacheRead: number };
  /** User text lines (string content or text blocks) plus assistant lines: what the `messages` log holds. */
  readonly messages: number;
  /** First and latest line timestamps (ms), from `timestamp` or a file-history snapshot's `snapshot.timestamp`. */
  readonly firstMs: number | undefined;
  readonly maxMs: number | undefined;
}

/** Scans a transcript's text (one JSON object per line). */
export function scanTranscript(text: string): TranscriptScan {
  let toolUse = 0;
  let errors = 0;
  let messages = 0;
  const nameOf = new Map<string, string>();
  const byTool = new Map<string, ScannedTool>();
  const failedIds: string[] = [];
  const lastUsage = new Map<string, Record<string, number>>();
  let runs = 0;
  let previousId: string | undefined;
  let firstMs: number | undefined;
  let maxMs: number | undefined;
  const tool = (name: string): ScannedTool => {
    let t = byTool.get(name);
    if (t === undefined) byTool.set(name, (t = { calls: 0, errors: 0 }));
    return t;
  };
  for (const raw of text.split('\n')) {
    if (raw.trim() === '') continue;
    const o = JSON.parse(raw);
    const stamp = o.timestamp ?? o.snapshot?.timestamp;
    const ms = typeof stamp === 'string' ? Date.parse(stamp) : Number.NaN;
    if (!Number.isNaN(ms)) {
      firstMs ??= ms;
      maxMs = maxMs === undefined ? ms : Math.max(maxMs, ms);
    }
    const content = o.message?.content;
    if (o.type === 'assistant') messages++;
    if (o.type === 'user' && (typeof content === 'string' || (Array.isArray(content) && content.some((b: { type: string }) => b.type === 'text')))) {
      messages++;
    }
    if (Array.isArray(content)) {
      for (const b of content) {
        if (b.type === 'tool_use') {
          toolUse++;
          nameOf.set(b.id, b.name);
          tool(b.name).calls++;
        }
        if (b.type === 'tool_result' && b.is_error === true) {
          errors++;
          failedIds.push(b.tool_use_id);
          tool(nameOf.get(b.tool_use_id) ?? '(no matching call)').errors++;
        }
      }
    }
    if (o.type === 'assistant' && o.message.usage) {
      lastUsage.set(o.message.id, o.message.usage);
      if (o.message.id !== previousId) runs++;
      previousId = o.message.id;
    }
  }
  const sum = (field: string) => [...lastUsage.values()].reduce((acc, u) => acc + (u[field] ?? 0), 0);
  return {
    toolUse,
    errors,
    byTool,
    failedIds,
    responses: lastUsage.size,
    runs,
    tokens: {
      input: sum('input_tokens'),
      output: sum('output_tokens'),
      cacheCreation: sum('cache_creation_input_tokens'),
      cacheRead: sum('cache_read_input_tokens'),
    },
    messages,
    firstMs,
    maxMs,
  };
}
