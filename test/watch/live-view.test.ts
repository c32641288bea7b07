import { afterEach, describe, expect, it, vi } from 'vitest';
import { LiveView, renderTable } from '../../src/watch/live-view';
import type { SessionStatus } from '../../src/watch/session-status';

const status = (over: Partial<SessionStatus>): SessionStatus => ({
  label: 'abc',
  file: '/p/abc.jsonl',
  parent: null,
  phase: 'executing',
  toolCalls: 12,
  errors: 1,
  pending: 0,
  tokens: 48_210,
  lines: 20,
  events: 30,
  offset: 9_000,
  lastActivityMs: 97_000,
  closed: false,
  ...over,
});

afterEach(() => vi.useRealTimers());

describe('renderTable', () => {
  it('one padded row per session under a header, subagents indented, alerts appended, lines cut to the width', () => {
    const rows = [status({}), status({ label: 'abc/agent-1', parent: 'abc', phase: 'responding', toolCalls: 3, errors: 0, tokens: 1_200, lastActivityMs: null })];
    expect(renderTable(rows, 100_000, 200, new Map([['abc', 'tokens 48,210 > 40,000']]))).toEqual([
      'session        phase       tools  failed  tokens  last activity',
      'abc            executing   12     1       48,210  3.0 s ago  ! tokens 48,210 > 40,000',
      '  abc/agent-1  responding  3      0       1,200   -',
    ]);
    expect(renderTable(rows, 100_000, 20)[1]).toBe('abc            exec…');
  });
});

describe('LiveView', () => {
  it('redraws in place: erases the previous table, throttles redraws, prints notices above the table', () => {
    vi.useFakeTimers();
    let now = 100_000;
    const out: string[] = [];
    let rows = [status({})];
    const view = new LiveView({ write: (s: string) => out.push(s), columns: 200 }, () => rows, undefined, { refreshMs: 200, now: () => now });
    view.draw();
    expect(out.join('')).toBe('session  phase      tools  failed  tokens  last activity\nabc      executing  12     1       48,210  3.0 s ago\n');
    out.length = 0;
    rows = [status({ toolCalls: 13 })];
    now += 50;
    view.update(); // within 200 ms of the last draw: deferred
    expect(out).toEqual([]);
    now += 150;
    vi.advanceTimersByTime(150);
    expect(out.join('')).toBe('\x1b[2A\x1b[Jsession  phase      tools  failed  tokens  last activity\nabc      executing  13     1       48,210  3.2 s ago\n');
    out.length = 0;
    view.notice('rxslice watch: def: watching /p/def.jsonl');
    expect(out[0]).toBe('\x1b[2A\x1b[J');
    expect(out[1]).toBe('rxslice watch: def: watching /p/def.jsonl\n');
    expect(out[2]).toMatch(/^session/);
    out.length = 0;
    rows = [status({ closed: true })];
    view.draw(); // closed and idle sessions leave the table
    expect(out.join('')).toBe('\x1b[2A\x1b[Jsession  phase  tools  failed  tokens  last activity\n');
    view.close();
  });

  it('shows a progress line under the table, redrawn with it, until it is removed', () => {
    const out: string[] = [];
    const now = 100_000;
    const view = new LiveView({ write: (s: string) => out.push(s), columns: 200 }, () => [status({})], undefined, { refreshMs: 0, now: () => now });
    view.progress('catching up: 1 of 3 files, 2.0 of 9.5 MB (1.2 s)');
    expect(out.join('')).toBe('session  phase      tools  failed  tokens  last activity\nabc      executing  12     1       48,210  3.0 s ago\ncatching up: 1 of 3 files, 2.0 of 9.5 MB (1.2 s)\n');
    out.length = 0;
    view.notice('rxslice watch: caught up');
    // The erase covers the progress line too (3 lines), the notice goes above, the line stays under.
    expect(out[0]).toBe('\x1b[3A\x1b[J');
    expect(out[1]).toBe('rxslice watch: caught up\n');
    expect(out[2]).toMatch(/\ncatching up: 1 of 3 files, 2\.0 of 9\.5 MB \(1\.2 s\)\n$/);
    out.length = 0;
    view.progress(undefined);
    expect(out.join('')).toBe('\x1b[3A\x1b[Jsession  phase      tools  failed  tokens  last activity\nabc      executing  12     1       48,210  3.0 s ago\n');
    view.close();
  });
});
