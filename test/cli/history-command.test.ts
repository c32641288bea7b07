/** `rxslice history <dir> --thread <id>` (src/cli/history-command.ts), issue 24 item 7; the LangGraph saver's directory, issue 37. */
import { mkdtempSync, rmSync, writeFileSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { add, createCheckpointer, defineState, field } from '../../src/index';
import { runCli } from '../../src/cli/main';
import type { CliIO } from '../../src/cli/progress';
import { checkpointFiles } from '../../src/jsonl/index';
import { RxSliceSaver, type LangGraphRecord } from '../../src/langgraph/index';
import { planGraph } from '../../examples/langgraph/graph';

const tmp = mkdtempSync(path.join(tmpdir(), 'rxslice-history-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
const dir = path.join(tmp, 'checkpoints');

const Chat = defineState('chat', {
  messages: field(z.array(z.string()), { reducer: add, default: [] }),
  phase: field(z.string(), { default: 'start' }),
});

function io() {
  const out: string[] = [];
  const err: string[] = [];
  const value: CliIO = { stdout: { write: (s: string) => out.push(s) }, stderr: { write: (s: string) => err.push(s) }, cwd: tmp };
  return { io: value, out: () => out.join(''), err: () => err.join('') };
}

let ids: string[] = [];
beforeAll(() => {
  let t = Date.UTC(2026, 0, 1);
  const cp = createCheckpointer({ state: Chat, storage: checkpointFiles(dir, { fsync: false }), now: () => (t += 1000) });
  const a = cp.put('chat-1', [{ messages: ['hi'] }]);
  const b = cp.put('chat-1', [{ messages: ['how are you'] }, { phase: 'talking' }], { note: 'second' });
  const c = cp.updateState('chat-1', { phase: 'review' }, { asNode: 'reviewer' });
  const f = cp.fork('chat-1', b.id, 'chat-2');
  ids = [a.id, b.id, c.id, f.id];
});

describe('rxslice history <dir> --thread <id>', () => {
  it('lists the checkpoints oldest first: id, parent, step, source, node, time, changed fields', async () => {
    const c = io();
    expect(await runCli(['history', 'checkpoints', '--thread', 'chat-1'], c.io)).toBe(0);
    expect(c.err()).toBe('');
    const lines = c.out().trimEnd().split('\n');
    expect(lines[0]).toBe(`thread "chat-1" in ${dir}: 3 checkpoints, oldest first`);
    expect(lines[1]).toMatch(/^id +parent +step +source +node +time +changed$/);
    const cells = lines.slice(2).map((l) => l.split(/ {2,}/));
    expect(cells).toEqual([
      [ids[0], '-', '0', 'input', '-', '2026-01-01T00:00:01.000Z', 'messages, phase (full)'], // the first record: every field
      [ids[1], ids[0], '1', 'loop', '-', '2026-01-01T00:00:02.000Z', 'messages, phase'],
      [ids[2], ids[1], '2', 'update', 'reviewer', '2026-01-01T00:00:03.000Z', 'phase'],
    ]);
  });

  it('--json gives the same rows as data; a fork starts its new thread with a full record', async () => {
    const c = io();
    expect(await runCli(['history', dir, '--thread', 'chat-2', '--json'], c.io)).toBe(0);
    const history = JSON.parse(c.out());
    expect(history).toEqual({
      dir,
      thread: 'chat-2',
      writer: 'checkpointer',
      checkpoints: [{ id: ids[3], parent: null, step: 0, source: 'fork', node: null, time: '2026-01-01T00:00:04.000Z', changed: ['messages', 'phase'], full: true, ns: null }],
    });
    const one = io();
    expect(await runCli(['history', dir, '--thread', 'chat-1', '--json'], one.io)).toBe(0);
    expect(JSON.parse(one.out()).checkpoints.map((r: { changed: string[]; full: boolean }) => [r.changed, r.full])).toEqual([
      [['messages', 'phase'], true],
      [['messages', 'phase'], false],
      [['phase'], false],
    ]);
  });

  it('an unknown thread names the threads the directory holds; a missing directory is not created', async () => {
    const c = io();
    expect(await runCli(['history', dir, '--thread', 'nope'], c.io)).toBe(1);
    expect(c.err()).toContain(`"${dir}" holds no checkpoint of thread "nope"; its threads: `);
    expect(c.err()).toContain('"chat-1"');
    expect(c.err()).toContain('"chat-2"');
    const missing = path.join(tmp, 'missing');
    const m = io();
    expect(await runCli(['history', missing, '--thread', 'x'], m.io)).toBe(1);
    expect(m.err()).toBe(`rxslice history: "${missing}" does not exist; expected a directory of checkpoint files (checkpointFiles(dir) of createCheckpointer or of the LangGraph RxSliceSaver)\n`);
    expect(readdirSync(tmp)).not.toContain('missing');
    const usage = io();
    expect(await runCli(['history', dir], usage.io)).toBe(2);
    expect(usage.err()).toContain("required option '--thread <id>' not specified");
  });

  it('a damaged thread file fails closed with its typed error', async () => {
    const damaged = path.join(tmp, 'damaged');
    createCheckpointer({ state: Chat, storage: checkpointFiles(damaged, { fsync: false }) }).put('t', [{ messages: ['x'] }]);
    const [file] = readdirSync(damaged);
    const text = readFileSync(path.join(damaged, file as string), 'utf8');
    writeFileSync(path.join(damaged, file as string), text.replace('"x"', '"y"'));
    const c = io();
    expect(await runCli(['history', damaged, '--thread', 't'], c.io)).toBe(1);
    expect(c.err()).toContain('CheckpointError (CHECKPOINT_CORRUPT)');
  });
});

describe('rxslice history on a directory of the LangGraph RxSliceSaver', () => {
  const saverDir = path.join(tmp, 'langgraph');
  let saver: RxSliceSaver;
  beforeAll(async () => {
    saver = new RxSliceSaver({ storage: checkpointFiles<LangGraphRecord>(saverDir, { fsync: false }) });
    const graph = planGraph(saver);
    const config = { configurable: { thread_id: 'plan-1' } };
    await graph.invoke({ steps: ['start'] }, config);
    await graph.updateState(config, { steps: ['edited'] }, 'review');
  });

  it('lists the checkpoints the library lists, oldest first (it crashed with "Invalid time value")', async () => {
    const fromLibrary = [];
    for await (const t of saver.list({ configurable: { thread_id: 'plan-1' } })) fromLibrary.unshift(t);
    expect(fromLibrary.length).toBeGreaterThan(5);
    const c = io();
    expect(await runCli(['history', 'langgraph', '--thread', 'plan-1', '--json'], c.io)).toBe(0);
    expect(c.err()).toBe('');
    const history = JSON.parse(c.out());
    expect(history.writer).toBe('langgraph');
    expect(history.checkpoints.map((r: { id: string; parent: string | null; step: number; source: string; time: string; ns: string }) => [r.id, r.parent, r.step, r.source, r.time, r.ns])).toEqual(
      fromLibrary.map((t) => [
        t.checkpoint.id,
        t.parentConfig?.configurable?.['checkpoint_id'] ?? null,
        t.metadata?.step,
        t.metadata?.source,
        new Date(t.checkpoint.ts).toISOString(),
        t.config.configurable?.['checkpoint_ns'],
      ]),
    );
    // The state channels each checkpoint wrote, LangGraph's own channels (__start__, branch:to:*) left out.
    const changed = history.checkpoints.map((r: { changed: string[] }) => r.changed);
    expect(changed[0]).toEqual([]); // the empty checkpoint before the input
    expect(changed.at(-1)).toEqual(['steps']); // the updateState
    expect(changed.flat().every((ch: string) => ch === 'steps' || ch === 'actions')).toBe(true);
    const text = io();
    expect(await runCli(['history', saverDir, '--thread', 'plan-1'], text.io)).toBe(0);
    const lines = text.out().trimEnd().split('\n');
    expect(lines[0]).toBe(`thread "plan-1" in ${saverDir} (LangGraph RxSliceSaver): ${fromLibrary.length} checkpoints, oldest first`);
    expect(lines.at(-1)).toMatch(/^\S+ +\S+ +\d+ +update +- +\d{4}-\d\d-\d\dT[\d:.]+Z +steps$/);
  });

  it('an unknown thread names the saver\'s threads', async () => {
    const c = io();
    expect(await runCli(['history', saverDir, '--thread', 'nope'], c.io)).toBe(1);
    expect(c.err()).toBe(`rxslice: "${saverDir}" holds no checkpoint of thread "nope"; its threads: "plan-1"\n`);
  });

  it('a thread file of records neither writer makes is one clear line, not a stack trace', async () => {
    const odd = path.join(tmp, 'odd');
    checkpointFiles<{ threadId: string; when: string }>(odd, { fsync: false }).append({ threadId: 't', when: 'yesterday' });
    const c = io();
    expect(await runCli(['history', odd, '--thread', 't'], c.io)).toBe(1);
    expect(c.err()).toBe(`rxslice: "${odd}", thread "t": record 1 is neither a createCheckpointer checkpoint nor a LangGraph RxSliceSaver record; nothing was listed\n`);
  });
});
