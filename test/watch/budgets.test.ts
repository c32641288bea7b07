import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { checkBudgets, InvalidBudgetsError, parseBudgets, WatchAlerts } from '../../src/watch/budgets';
import { WatchedTranscript } from '../../src/watch/watched-transcript';

const source = readFileSync(join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'examples', 'data', 'spotter-short.jsonl'));
let dir: string;
beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'rxslice-budgets-'))));
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('checkBudgets', () => {
  it('raises each crossed budget once, as a committed watch/budgetExceeded kept across a restart', () => {
    const file = join(dir, 't.jsonl');
    writeFileSync(file, source);
    const store = join(dir, 'store');
    const budgets = parseBudgets({ maxTokens: 20_000, errorRate: { max: 0.5, minCalls: 2 }, maxPhaseMs: 1_000 }, 'test');
    const first = new WatchedTranscript({ file, label: 't', storeDir: store });
    first.pump();
    const alerts = checkBudgets(first.current, budgets);
    expect(alerts.map((a) => [a.budget, a.value, a.limit, a.message])).toEqual([
      ['tokens', 25_366, 20_000, 'tokens 25,366 > 20,000'],
      ['errorRate', 1, 0.5, '2 of 2 tool calls failed in 600 s (> 50%)'],
      ['phaseTime', expect.any(Number), 1_000, expect.stringMatching(/^[\d,]+ s in waitingForUser \(> 1 s\)$/)],
    ]);
    expect(checkBudgets(first.current, budgets)).toEqual([]);
    first.close();
    const second = new WatchedTranscript({ file, label: 't', storeDir: store });
    expect(second.current.slice(WatchAlerts).size).toBe(3);
    expect(checkBudgets(second.current, budgets)).toEqual([]);
    second.close();
  });

  it('raises nothing under the limits, and refuses bad budgets with what is wrong', () => {
    const file = join(dir, 't.jsonl');
    writeFileSync(file, source);
    const watched = new WatchedTranscript({ file, label: 't' });
    watched.pump();
    expect(checkBudgets(watched.current, { maxTokens: 30_000, errorRate: { max: 0.5, windowMs: 600_000, minCalls: 3 } })).toEqual([]);
    watched.close();
    expect(() => parseBudgets({ maxTokens: -1, errorRate: { max: 2 }, extra: 1 }, 'b.json')).toThrow(InvalidBudgetsError);
    expect(() => parseBudgets({ errorRate: { max: 2 } }, 'b.json')).toThrow(/Invalid budgets in b\.json: errorRate\.max: .*Fields: maxTokens/);
  });
});
