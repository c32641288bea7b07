// `rxslice watch` in-process (runCli with captured output): the plain lines (not a terminal) and
// the --json records, new lines appended while it runs, bad paths.
import { appendFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/main';
import type { CliIO } from '../../src/cli/progress';
import type { WatchCommandHandle } from '../../src/cli/watch-command';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const tmp = mkdtempSync(path.join(tmpdir(), 'rxslice-watch-cli-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
const source = readFileSync(path.join(ROOT, 'examples/data/spotter-short.jsonl'));
const cut = source.indexOf(0x0a, 5000) + 1;

function capture(isTTY = false) {
  const out: string[] = [];
  const err: string[] = [];
  const io: CliIO = { stdout: { write: (s: string) => out.push(s), isTTY, columns: 200 }, stderr: { write: (s: string) => err.push(s), isTTY: false }, cwd: tmp };
  return { io, out, err };
}

const until = async (condition: () => boolean, what: string): Promise<void> => {
  for (let i = 0; i < 400 && !condition(); i++) await new Promise((r) => setTimeout(r, 25));
  if (!condition()) throw new Error(`timed out waiting for ${what}`);
};

async function runWatch(args: string[], isTTY = false) {
  const c = capture(isTTY);
  let watch: WatchCommandHandle | undefined;
  const code = await runCli(['watch', ...args], c.io, { onWatch: (w) => (watch = w) });
  return { ...c, code, watch: watch! };
}

describe('rxslice watch', () => {
  it('prints one plain line per update when stdout is not a terminal, notices on stderr', async () => {
    const dir = path.join(tmp, 'plain');
    mkdirSync(path.join(dir, 's1', 'subagents'), { recursive: true });
    appendFileSync(path.join(dir, 's1.jsonl'), source.subarray(0, cut));
    const w = await runWatch(['plain']);
    try {
      expect(w.code).toBe(0);
      expect(w.err.join('')).toBe(`rxslice watch: s1: watching ${path.join(dir, 's1.jsonl')}\n`);
      expect(w.out).toHaveLength(1);
      expect(w.out[0]).toMatch(/^\d\d:\d\d:\d\d s1 \+8 lines \+9 events \| executing \| tools 1 \(0 failed\) \| tokens 25,366 \| 8 lines, 5,929 bytes\n$/);
      appendFileSync(path.join(dir, 's1', 'subagents', 'agent-a.jsonl'), source);
      appendFileSync(path.join(dir, 's1.jsonl'), source.subarray(cut));
      await until(() => w.out.length >= 3, 'two more updates');
      expect(w.err.join('')).toContain(`s1/agent-a: watching ${path.join(dir, 's1', 'subagents', 'agent-a.jsonl')} (subagent of s1)`);
      expect(w.out.join('')).toMatch(/ s1\/agent-a \+15 lines \+17 events \| waitingForUser \| tools 2 \(2 failed\) \| tokens 25,366 \| 15 lines, 10,491 bytes\n/);
      expect(w.out.join('')).toMatch(/ s1 \+7 lines \+8 events \| waitingForUser \| tools 2 \(2 failed\) \| tokens 25,366 \| 15 lines, 10,491 bytes\n/);
      // A line cut off mid-way (the writer crashed) is reported on stderr with its file, number and reason; the watch goes on.
      appendFileSync(path.join(dir, 's1.jsonl'), Buffer.concat([Buffer.from('{"type":"user","message":{"role":"user","content":"cut here\n'), source.subarray(0, cut)]));
      await until(() => w.out.length >= 4, 'the update after the cut line');
      expect(w.err.join('')).toContain(`rxslice watch: s1: line 16 of ${path.join(dir, 's1.jsonl')} is not JSON (invalid JSON: Unterminated string in JSON at position 59); it gives no event\n`);
      expect(w.out.at(-1)).toMatch(/ s1 \+9 lines \+9 events \| /);
    } finally {
      await w.watch.close();
    }
  });

  it('--json prints one record per update and per notice', async () => {
    const dir = path.join(tmp, 'json');
    mkdirSync(dir, { recursive: true });
    const file = path.join(dir, 'a.jsonl');
    appendFileSync(file, source.subarray(0, cut));
    const w = await runWatch([file, '--json']);
    try {
      await until(() => w.out.length >= 2, 'the first update');
      const [notice, update] = w.out.map((l) => JSON.parse(l) as Record<string, unknown>);
      expect(notice).toMatchObject({ type: 'notice', label: 'a', message: `a: watching ${file}` });
      expect(update).toMatchObject({ type: 'update', label: 'a', parent: null, newLines: 8, newEvents: 9, refused: 0, restarted: null, phase: 'executing', toolCalls: 1, errors: 0, pending: 1, tokens: 25_366, lines: 8, events: 9, offset: cut, closed: false });
      expect(w.err).toEqual([]);
      appendFileSync(file, 'not json\n');
      await until(() => w.out.length >= 4, 'the notice of the line and the second update');
      const reason = 'invalid JSON: Unexpected token \'o\', "not json" is not valid JSON';
      expect(JSON.parse(w.out[2]!)).toMatchObject({ type: 'notice', label: 'a', file, line: 9, reason, message: `a: line 9 of ${file} is not JSON (${reason}); it gives no event` });
      expect(JSON.parse(w.out[3]!)).toMatchObject({ type: 'update', newLines: 1, newEvents: 0, lines: 9, offset: cut + 9 });
      rmSync(file);
      await until(() => w.out.length >= 5, 'the notice of the removal');
      expect(JSON.parse(w.out[4]!)).toMatchObject({ type: 'notice', label: 'a', message: `a: ${file} disappeared; its session is closed` });
    } finally {
      await w.watch.close();
    }
  });

  it('draws one row per session on a terminal and redraws the table in place, notices above it', async () => {
    const dir = path.join(tmp, 'tty');
    mkdirSync(dir, { recursive: true });
    const file = path.join(dir, 'live.jsonl');
    appendFileSync(file, source.subarray(0, cut));
    const w = await runWatch([file], true);
    try {
      await until(() => /executing/.test(w.out.join('')), 'the row of the session');
      const text = w.out.join('');
      expect(text).toContain(`rxslice watch: live: watching ${file}\n`);
      expect(text).toMatch(/session +phase +tools +failed +tokens +last activity\nlive +executing +1 +0 +25,366 +\d+\.\d s ago\n$/);
      expect(w.err).toEqual([]);
      w.out.length = 0;
      appendFileSync(file, source.subarray(cut));
      await until(() => /waitingForUser/.test(w.out.join('')), 'the redrawn row');
      // The two lines of the previous table are erased before the new one is written.
      expect(w.out.join('')).toMatch(/\x1b\[2A\x1b\[Jsession[^\n]*\nlive +waitingForUser +2 +2 +25,366 /);
    } finally {
      await w.watch.close();
    }
  });

  it('budgets: an alert record, a POST to a local server and a command with the alert in $RXSLICE_ALERT', async () => {
    const posts: { contentType: string | undefined; body: Record<string, unknown> }[] = [];
    const server = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString('utf8')));
      req.on('end', () => {
        posts.push({ contentType: req.headers['content-type'], body: JSON.parse(body) as Record<string, unknown> });
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const dir = path.join(tmp, 'alerts');
    mkdirSync(dir, { recursive: true });
    const file = path.join(dir, 'b.jsonl');
    appendFileSync(file, source);
    const budgetsFile = path.join(dir, 'budgets.json');
    writeFileSync(budgetsFile, JSON.stringify({ maxTokens: 100_000, errorRate: { max: 0.5, minCalls: 2 } }));
    const marker = path.join(dir, 'alert.json');
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/alerts`;
    const w = await runWatch([file, '--json', '--budgets', budgetsFile, '--max-tokens', '20000', '--alert-url', url, '--on-alert', `node -e "require('fs').appendFileSync(process.argv[1], process.env.RXSLICE_ALERT + '\\n')" ${JSON.stringify(marker)}`]);
    try {
      await until(() => posts.length >= 2 && existsSync(marker) && readFileSync(marker, 'utf8').split('\n').length >= 3, 'the POSTs and the command');
      const records = w.out.map((l) => JSON.parse(l) as Record<string, unknown>).filter((r) => r['type'] === 'alert');
      expect(records.map((r) => [r['label'], r['budget'], r['message']])).toEqual([
        ['b', 'tokens', 'tokens 25,366 > 20,000'],
        ['b', 'errorRate', '2 of 2 tool calls failed in 600 s (> 50%)'],
      ]);
      expect(posts.map((p) => [p.contentType, p.body['type'], p.body['budget'], p.body['label'], p.body['file']]).sort()).toEqual([
        ['application/json', 'alert', 'errorRate', 'b', file],
        ['application/json', 'alert', 'tokens', 'b', file],
      ]);
      const fromCommand = readFileSync(marker, 'utf8').trim().split('\n').map((l) => (JSON.parse(l) as { budget: string }).budget);
      expect(fromCommand.sort()).toEqual(['errorRate', 'tokens']);
    } finally {
      await w.watch.close();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  it('refuses invalid budgets with what is wrong', async () => {
    const w = await runWatch(['.', '--max-error-rate', '1.5']);
    expect(w.code).toBe(2);
    expect(w.err.join('')).toContain('a number above 0 and at most 1');
    const file = path.join(tmp, 'bad-budgets.json');
    writeFileSync(file, JSON.stringify({ maxTokens: 'many' }));
    const bad = await runWatch(['.', '--budgets', file]);
    expect(bad.code).toBe(1);
    expect(bad.err.join('')).toMatch(/InvalidBudgetsError \(INVALID_BUDGETS\): Invalid budgets in .*bad-budgets\.json: maxTokens: /);
  });

  it('says it is waiting, what for and where, when there is no transcript yet; then watches the first that appears', async () => {
    const dir = path.join(tmp, 'empty');
    mkdirSync(path.join(dir, 'sub'), { recursive: true });
    const w = await runWatch(['empty']);
    try {
      expect(w.code).toBe(0);
      expect(w.err.join('')).toBe(`rxslice watch: waiting for transcripts: no *.jsonl file in ${dir} yet (subdirectories included); each one that appears is watched\n`);
      expect(w.out).toEqual([]);
      appendFileSync(path.join(dir, 'sub', 'late.jsonl'), source.subarray(0, cut));
      await until(() => w.out.length >= 1, 'the update of the new file');
      expect(w.err.join('')).toContain(`rxslice watch: late: watching ${path.join(dir, 'sub', 'late.jsonl')}\n`);
      expect(w.out[0]).toMatch(/ late \+8 lines \+9 events /);
    } finally {
      await w.watch.close();
    }
    const json = await runWatch([path.join(tmp, 'empty', 'sub'), dir, '--json']);
    try {
      expect(json.code).toBe(0);
      expect(json.out.map((l) => JSON.parse(l) as Record<string, unknown>).filter((r) => r['label'] === null)).toEqual([]);
    } finally {
      await json.watch.close();
    }
    const emptyJson = path.join(tmp, 'empty-json');
    mkdirSync(emptyJson);
    const j = await runWatch([emptyJson, '--json']);
    try {
      expect(j.out.map((l) => JSON.parse(l) as Record<string, unknown>)).toEqual([
        { type: 'notice', at: expect.any(String), label: null, message: `waiting for transcripts: no *.jsonl file in ${emptyJson} yet (subdirectories included); each one that appears is watched` },
      ]);
      expect(j.err).toEqual([]);
    } finally {
      await j.watch.close();
    }
  });

  it('skips a path that does not exist or is no transcript, and fails when nothing is left to watch', async () => {
    const w = await runWatch(['missing']);
    expect(w.code).toBe(1);
    expect(w.err.join('')).toBe('rxslice watch: "missing" does not exist; expected Claude Code transcripts (.jsonl files, or directories of them)\n');
    expect(w.out).toEqual([]);
    const dir = path.join(tmp, 'skips');
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, 'notes.txt'), 'plain text\n');
    appendFileSync(path.join(dir, 't.jsonl'), source.subarray(0, cut));
    writeFileSync(path.join(dir, 'renamed.txt'), source.subarray(0, cut));
    const some = await runWatch(['missing', 'skips/notes.txt', 'skips/renamed.txt', 'skips/t.jsonl']);
    try {
      expect(some.code).toBe(0);
      expect(some.err.join('')).toBe(
        'rxslice watch: "missing" does not exist; expected Claude Code transcripts (.jsonl files, or directories of them); skipping it\n' +
          'rxslice watch: "skips/notes.txt" is a file of another kind (no line of it is a JSON object); expected Claude Code transcripts (.jsonl files, or directories of them); skipping it\n' +
          'rxslice watch: "skips/renamed.txt" is a Claude Code transcript, but not named *.jsonl (the watch follows *.jsonl files); expected Claude Code transcripts (.jsonl files, or directories of them); skipping it\n' +
          `rxslice watch: t: watching ${path.join(dir, 't.jsonl')}\n`,
      );
      expect(some.out).toHaveLength(1);
    } finally {
      await some.watch.close();
    }
  });

  it('--inspect serves every watched session and streams each commit to the page; a transcript that starts over is a reset', async () => {
    const dir = path.join(tmp, 'inspect');
    mkdirSync(dir, { recursive: true });
    const file = path.join(dir, 's1.jsonl');
    appendFileSync(file, source.subarray(0, cut));
    const w = await runWatch(['inspect', '--inspect', '--port', '0']);
    try {
      expect(w.code).toBe(0);
      const url = w.watch.inspector!.url;
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
      expect(w.err.join('')).toContain(`rxslice watch: live inspector at ${url}  (this machine only; Ctrl-C stops)\n`);
      const api = async (p: string) => (await fetch(new URL(p, url))).json();
      const sessions = (await api('/api/sessions')) as { id: string; size: number; lastSeq: number; live: boolean; file: string }[];
      expect(sessions).toEqual([{ id: 's1', label: 's1', file, live: true, closed: false, size: 10, lastSeq: 10 }]);
      // 8 lines read at once: 9 transcript events and one watch/lineRead (the committed offset, 8 lines).
      const page = (await api('/api/events?session=s1&offset=0&limit=100')) as { rows: { type: string }[] };
      expect(page.rows.filter((r) => r.type === 'watch/lineRead')).toHaveLength(1);
      // The state the page shows is the watched session's.
      const live = w.watch.transcripts.get(file)!.current;
      const state = (await api('/api/state?session=s1&seq=10')) as { slices: Record<string, { items: unknown[] }> };
      expect(state.slices['toolCalls']?.items).toEqual(JSON.parse(JSON.stringify(live.snapshot({ includeLogs: true }).slices['toolCalls']?.items)));
      // The event stream: the list at connect, then one message per update.
      const controller = new AbortController();
      const res = await fetch(new URL('/api/stream', url), { signal: controller.signal });
      const reader = res.body!.getReader();
      let text = '';
      const read = async (until: (t: string) => boolean) => {
        while (!until(text)) text += new TextDecoder().decode((await reader.read()).value);
      };
      await read((t) => t.includes('event: sessions'));
      appendFileSync(file, source.subarray(cut));
      await read((t) => t.includes('event: events'));
      expect(text).toContain('event: events\ndata: {"kind":"events","session":"s1","lastSeq":19,"size":19}\n\n');
      // Truncated: the session starts over, the page is told to read it anew.
      writeFileSync(file, source.subarray(0, cut));
      await read((t) => t.includes('event: reset') && /event: events\ndata: \{"kind":"events","session":"s1","lastSeq":10,/.test(t.slice(t.indexOf('event: reset'))));
      controller.abort();
      expect(((await api('/api/summary?session=s1')) as { lastSeq: number }).lastSeq).toBe(10);
    } finally {
      await w.watch.close();
    }
    await expect(fetch(w.watch.inspector!.url)).rejects.toThrow();
  });

  it('--allowed-host: the live inspector also answers to the names given, and still refuses any other Host', async () => {
    const dir = path.join(tmp, 'allowed');
    mkdirSync(dir, { recursive: true });
    appendFileSync(path.join(dir, 's1.jsonl'), source.subarray(0, cut));
    const w = await runWatch(['allowed', '--inspect', '--port', '0', '--allowed-host', 'tunnel.example', 'box.internal']);
    expect(w.code).toBe(0);
    try {
      const port = w.watch.inspector!.port;
      const statusFor = (host: string) =>
        new Promise<number>((resolve, reject) => {
          const req = request({ host: '127.0.0.1', port, path: '/api/sessions', headers: { host }, setHost: false }, (res) => {
            res.resume();
            resolve(res.statusCode ?? 0);
          });
          req.on('error', reject);
          req.end();
        });
      expect(await statusFor(`tunnel.example:${port}`)).toBe(200);
      expect(await statusFor(`BOX.internal:${port}`)).toBe(200);
      expect(await statusFor('tunnel.example')).toBe(403); // the name with another port (80) is another server
      expect(await statusFor(`evil.example:${port}`)).toBe(403);
    } finally {
      await w.watch.close();
    }
  });

  it('--inspect on a port in use exits 1 with what to do, before watching anything', async () => {
    const other = createServer((_req, res) => res.end('other'));
    await new Promise<void>((r) => other.listen(0, '127.0.0.1', r));
    const port = (other.address() as AddressInfo).port;
    try {
      const w = await runWatch(['inspect', '--inspect', '--port', String(port)]);
      expect(w.code).toBe(1);
      expect(w.watch).toBeUndefined();
      expect(w.err.join('')).toBe(`rxslice watch: The inspector cannot start: port ${port} on 127.0.0.1 is in use (another inspector or server listens there): choose another with --port <n>, or --port 0 for any free port.\n`);
      expect(w.out).toEqual([]);
      const noInspect = await runWatch(['inspect', '--port', '0']);
      expect(noInspect.code).toBe(2);
      expect(noInspect.err.join('')).toBe('rxslice watch: --port, --host and --allowed-host are options of the live inspector: add --inspect\n');
    } finally {
      other.close();
    }
  });
});
