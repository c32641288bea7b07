import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

/** The statechart examples of issue 5 run as a user would run them, and print a diagram and a run. */
const ROOT = resolve(__dirname, '../..');
const run = (file: string) =>
  spawnSync(process.execPath, ['--import', 'tsx', file], { cwd: ROOT, encoding: 'utf8', timeout: 60_000 });

describe('examples/agent-phase', () => {
  const r = run('examples/agent-phase/main.ts');

  it('exits 0 and prints its Mermaid diagram: nested active phase, finals, the guard as a label', () => {
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('--- Mermaid ---\nstateDiagram-v2\n    [*] --> idle\n');
    expect(r.stdout).toContain('    state active {\n        [*] --> planning\n');
    expect(r.stdout).toContain('    complete --> [*]\n');
    expect(r.stdout).toContain('    active --> failed: agent/aborted\n');
    expect(r.stdout).toContain('    executing --> reviewing: agent/reviewRequested [allStepsDone]\n');
    expect(r.stdout).toContain('    reviewing --> executing: agent/changesRequested\n');
  });

  it('runs planning → executing → reviewing → back to executing → complete, and aborts from an active phase', () => {
    const phases = [...r.stdout.matchAll(/^\[([^\]]*)\]/gm)].map((m) => m[1]);
    expect(phases).toEqual([
      'idle',
      'active, planning',
      'active, executing',
      'active, executing',
      'active, executing',
      'active, reviewing',
      'active, executing',
      'active, executing',
      'active, reviewing',
      'complete',
      'failed',
    ]);
    expect(r.stdout).toContain('output: {"steps":3,"reviews":2}');
    // the guard "all steps done" blocks an early review; policy 'throw' names the guard, the event and the configuration
    expect(r.stdout).toContain('InvalidTransitionError: Machine "agentPhase": guard "allStepsDone" refused "agent/reviewRequested" in [active, executing] (from "executing") (it gave no reason: return refuse(reason) instead of false to say why)\n');
  });
});

describe('examples/plan-approval', () => {
  const r = run('examples/plan-approval/main.ts');

  it('exits 0 and prints its Mermaid diagram: parallel regions, deep history, done.state', () => {
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('--- Mermaid ---\nstateDiagram-v2\n    [*] --> drafting\n');
    expect(r.stdout).toMatch(/state inProgress \{[\s\S]*\n {8}--\n/);
    expect(r.stdout).toContain('state "H*" as stepsHistory');
    expect(r.stdout).toContain('inProgress --> completed: done.state.inProgress');
  });

  it('pauses and resumes into the same step through deep history, in virtual time, and completes', () => {
    const lines = r.stdout.split('\n');
    const at = (prefix: string) => lines.find((l) => l.startsWith(prefix));
    expect(at('t= 50000ms')).toBe('t= 50000ms [paused] pending=-'); // leaving cancelled the stall reminder
    expect(at('t= 70000ms')).toBe('t= 70000ms [prose, waiting] pending=plan/stalled@130000'); // back in prose
    expect(at('t=210000ms')).toBe('t=210000ms [completed] pending=- (final)');
  });
});
