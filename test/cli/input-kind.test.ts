/** What a path given to the command line is (src/cli/input-kind.ts), for the cases the table test does not hold. */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { inputKind, refusal } from '../../src/cli/input-kind';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const tmp = mkdtempSync(path.join(tmpdir(), 'rxslice-input-kind-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
const transcript = readFileSync(path.join(ROOT, 'examples/data/spotter-short.jsonl'), 'utf8');

function file(name: string, text: string | Buffer): string {
  const p = path.join(tmp, name);
  writeFileSync(p, text);
  return p;
}

describe('inputKind', () => {
  it('a transcript is told by its first JSON object line: one cut off before it, or one still without its newline, do not hide it', () => {
    expect(inputKind(file('cut-first.jsonl', `{"type":"user","mess\n${transcript}`)).kind).toBe('transcript');
    expect(inputKind(file('writing.jsonl', '{"type":"user","message":{"ro')).kind).toBe('transcript');
    expect(inputKind(file('new.jsonl', '')).kind).toBe('transcript');
  });

  it('JSON lines of another tool, pretty-printed JSON and text are other kinds of file', () => {
    expect(inputKind(file('log.jsonl', '{"level":"info","msg":"hi"}\n{"level":"warn","msg":"ho"}\n'))).toEqual({ kind: 'other-file', description: 'a file of another kind (JSON lines, but no transcript lines)' });
    expect(inputKind(path.join(ROOT, 'package.json'))).toEqual({ kind: 'other-file', description: 'a file of another kind (no line of it is a JSON object)' });
    expect(inputKind(file('empty.txt', '')).description).toBe('an empty file');
    expect(inputKind(file('bin.dat', Buffer.from([0x00, 0x01, 0x02, 0x0a]))).description).toBe('a file of another kind (binary, not JSON lines)');
  });

  it('a directory is told by its entries; a path below a file is missing', () => {
    mkdirSync(path.join(tmp, 'projects', 'p1'), { recursive: true });
    expect(inputKind(path.join(tmp, 'projects')).kind).toBe('other-directory'); // ~/.claude/projects: one directory per project
    expect(inputKind(path.join(tmp, 'projects', 'p1')).kind).toBe('empty-directory');
    expect(inputKind(path.join(tmp, 'new.jsonl', 'x')).kind).toBe('missing');
  });

  it('refusal: one line, the path as given, what it is, what was expected', () => {
    expect(refusal('stats', 'r', { kind: 'missing', description: 'missing (no such file or directory)' }, 'a flight recording')).toBe('rxslice stats: "r" does not exist; expected a flight recording');
    expect(refusal('replay', 'x.png', inputKind(file('x.png', Buffer.from('89504e470d0a1a0a', 'hex'))), 'transcripts')).toBe('rxslice replay: "x.png" is a file of another kind (binary, not JSON lines); expected transcripts');
  });
});
