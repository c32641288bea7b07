import { appendFileSync, mkdtempSync, renameSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FileTail } from '../../src/watch/file-tail';

let dir: string;
let file: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'rxslice-tail-'));
  file = join(dir, 't.jsonl');
  writeFileSync(file, '');
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const texts = (tail: FileTail): string[] => tail.read().lines.map((l) => l.text);

describe('FileTail', () => {
  it('holds a partial last line until its newline arrives', () => {
    const tail = new FileTail(file);
    appendFileSync(file, '{"a":1}\n{"b"');
    expect(texts(tail)).toEqual(['{"a":1}']);
    expect(tail.pendingBytes).toBe(4);
    appendFileSync(file, ':2}');
    expect(texts(tail)).toEqual([]);
    appendFileSync(file, '\r\n{"c":3}\n');
    const read = tail.read();
    expect(read.lines).toEqual([
      { text: '{"b":2}', start: 8, end: 17 },
      { text: '{"c":3}', start: 17, end: 25 },
    ]);
    expect(tail.committedOffset).toBe(25);
  });

  it('decodes a UTF-8 character cut between two writes once it is whole', () => {
    const tail = new FileTail(file);
    const bytes = Buffer.from('{"t":"é€"}\n');
    appendFileSync(file, bytes.subarray(0, 7)); // inside "é"
    expect(texts(tail)).toEqual([]);
    appendFileSync(file, bytes.subarray(7));
    expect(texts(tail)).toEqual(['{"t":"é€"}']);
  });

  it('reads only from the committed offset it resumes at', () => {
    writeFileSync(file, 'one\ntwo\nthree\n');
    const tail = new FileTail(file, 4);
    expect(tail.read().lines.map((l) => [l.text, l.start])).toEqual([
      ['two', 4],
      ['three', 8],
    ]);
  });

  it('starts over at byte 0 when the file shrinks, and says so', () => {
    const tail = new FileTail(file);
    appendFileSync(file, 'one\ntwo\n');
    texts(tail);
    truncateSync(file, 0);
    appendFileSync(file, 'new\n');
    const read = tail.read();
    expect(read.restarted).toBe('truncated');
    expect(read.lines.map((l) => [l.text, l.start])).toEqual([['new', 0]]);
  });

  it('starts over when the file is replaced by another (a new inode), even a longer one', () => {
    const tail = new FileTail(file);
    appendFileSync(file, 'one\n');
    texts(tail);
    writeFileSync(join(dir, 'next'), 'first\nsecond\n');
    renameSync(join(dir, 'next'), file);
    const read = tail.read();
    expect(read.restarted).toBe('replaced');
    expect(read.lines.map((l) => l.text)).toEqual(['first', 'second']);
  });

  it('throws ENOENT for a file that disappeared, and moves nothing', () => {
    const tail = new FileTail(file);
    appendFileSync(file, 'one\n');
    texts(tail);
    rmSync(file);
    expect(() => tail.read()).toThrow(expect.objectContaining({ code: 'ENOENT' }));
    expect(tail.committedOffset).toBe(4);
  });
});
