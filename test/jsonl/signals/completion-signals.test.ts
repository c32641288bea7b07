import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { archiveSignal, createSignalDirectory, CompletionSignal, pollSignals, SignalClaimLostError, writeCompletionSignal } from '../../../src/jsonl/index';

// Issue 33, item 10: the patterns document's three calls, as written there (Python), adapted only as
// far as TypeScript requires (camelCase):
//   write_completion_signal(project_dir, agent_type, status, next_state, metadata)
//     writes .agent-signals/<agent>-<timestamp>.json
//   poll_signals(project_dir)   returns the unprocessed ones in order
//   archive_signal(path)        moves one to processed/

const projects: string[] = [];
const newProject = (): string => {
  const d = mkdtempSync(join(tmpdir(), 'rxslice-project-'));
  projects.push(d);
  return d;
};
afterEach(() => {
  for (const d of projects.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe('the document\'s signal calls', () => {
  it('write_completion_signal writes .agent-signals/<agent>-<timestamp>.json; poll_signals returns them in order; archive_signal moves one to processed/', () => {
    const projectDir = newProject();
    const first = writeCompletionSignal(projectDir, 'planner', 'completed', 'implementation', { plan: 'PLAN.md' });
    const second = writeCompletionSignal(projectDir, 'implementer', 'completed', 'review', { filesChanged: 3 });
    const third = writeCompletionSignal(projectDir, 'code-reviewer', 'failed', null, {});

    // <agent>-<timestamp>.json in <project>/.agent-signals (the timestamp UTC, to the ms, then what makes it unique)
    for (const [s, agent] of [[first, 'planner'], [second, 'implementer'], [third, 'code-reviewer']] as const) {
      expect(s.path.startsWith(join(projectDir, '.agent-signals') + '/')).toBe(true);
      expect(s.path.slice(join(projectDir, '.agent-signals').length + 1)).toMatch(new RegExp(`^${agent}-\\d{8}T\\d{9}Z-\\d{8}-\\d+-[0-9a-f]{8}\\.json$`));
      expect(existsSync(s.path)).toBe(true);
    }

    const signals = pollSignals(projectDir);
    expect(signals.map((s) => s.signal)).toEqual([
      { agentType: 'planner', status: 'completed', nextState: 'implementation', metadata: { plan: 'PLAN.md' } },
      { agentType: 'implementer', status: 'completed', nextState: 'review', metadata: { filesChanged: 3 } },
      { agentType: 'code-reviewer', status: 'failed', nextState: null, metadata: {} },
    ]);
    expect(signals.map((s) => s.path)).toEqual([first.path, second.path, third.path]);
    expect(signals.map((s) => Date.parse(s.publishedAt))).toEqual([...signals.map((s) => Date.parse(s.publishedAt))].sort((a, b) => a - b));

    const archived = archiveSignal(signals[0]!.path);
    expect(archived.path).toBe(join(projectDir, '.agent-signals', 'processed', readdirSync(join(projectDir, '.agent-signals', 'processed'))[0]!));
    expect(existsSync(signals[0]!.path)).toBe(false);
    expect(pollSignals(projectDir).map((s) => s.signal.agentType)).toEqual(['implementer', 'code-reviewer']);
    for (const s of pollSignals(projectDir)) archiveSignal(s.path);
    expect(pollSignals(projectDir)).toEqual([]);
    expect(readdirSync(join(projectDir, '.agent-signals', 'processed'))).toHaveLength(3);
  });

  it('poll_signals on a project without signals returns nothing; a claimed signal archives from claimed/ too', () => {
    const projectDir = newProject();
    expect(pollSignals(projectDir)).toEqual([]);
    writeCompletionSignal(projectDir, 'planner', 'completed', 'implementation', {});
    const claimed = createSignalDirectory({ dir: join(projectDir, '.agent-signals'), channel: CompletionSignal }).claimNext()!;
    expect(pollSignals(projectDir)).toEqual([]); // claimed: not unprocessed for others
    expect(archiveSignal(claimed.path).signal.agentType).toBe('planner');
  });

  it('two orchestrators following the document (poll, handle, archive) cannot both archive one signal; claiming is how they avoid both handling it', () => {
    const projectDir = newProject();
    writeCompletionSignal(projectDir, 'planner', 'completed', 'implementation', {});
    const [seenByA] = pollSignals(projectDir);
    const [seenByB] = pollSignals(projectDir);
    archiveSignal(seenByA!.path);
    expect(() => archiveSignal(seenByB!.path)).toThrow(SignalClaimLostError);
  });

  it('refuses an agent type that cannot start a file name, and writes nothing', () => {
    const projectDir = newProject();
    expect(() => writeCompletionSignal(projectDir, '../escape', 'completed', null, {})).toThrow(/source/);
    expect(existsSync(join(projectDir, '.agent-signals'))).toBe(false);
  });
});
