// The session's own snapshot catalogue matches tags without picomatch (the core installs only
// rxjs, zod and immer): its globs must mean what picomatch's do wherever it takes them.
import fc from 'fast-check';
import picomatch from 'picomatch';
import { describe, expect, it } from 'vitest';
import { compileTagGlob } from '../../src/snapshot-store/tag-glob';

const TAGS = ['v1.2', 'tool:x.y', 'tool:search', 'tool:', 'tool:a/b', 'tool:x:y', 'plan:x', 'debug:1', 'ax', 'bx', 'a*', 'ab', 'a', 'b', 'bc', 'bd', 'x', 'y/x', 'a/x/b', 'a/b', 'x/y', 'axxb', '.x', 'a.x', 'a+b', 'a@b', 'a[b', '{a', 'a}', 'a,b', '!x', '/a', 'a//b', '-', 'a^b', '$a', 'tool:edit', 'plan:ab', ']x', '^x', '!', 'a?b'];
const PATTERNS = ['tool:*', '**', '*', 'a/**', 'a/**/b', '**/x', 'v*.*', 'tool:*.y', '*.2', 'tool:?', '{plan,tool}:*', '{tool,plan}:{a*,b?}', '!tool:*', '!!a', '!debug:*', '[a-c]x', '[^a]x', '[]]x', 'a\\*', '\\!x', '*.x', 'tool:*:*', '{a,b{c,d}}', 'a{,b}', '{a,}', 'a[b', '{a', 'a}', 'a,b', 'a+b', 'a@b', '$a', 'a^b', '.x', 'a//b', '/a', '??'];

describe('compileTagGlob', () => {
  it.each(PATTERNS)('%s matches the tags picomatch matches', (pattern) => {
    const ours = compileTagGlob(pattern, 'tag');
    const theirs = picomatch(pattern, { dot: true });
    expect(TAGS.filter(ours)).toEqual(TAGS.filter((t) => theirs(t)));
  });

  it('agrees with picomatch on random globs of the syntax it takes (seed printed on failure)', () => {
    // No "/" or "." in random globs and tags: picomatch's path rules ("." and ".." segments, a
    // leading "./", a trailing "/") are not followed on purpose (see tag-glob.ts); the table
    // above has the tags with slashes and dots that matter.
    const token = fc.constantFrom('a', 'b', ':', '-', '*', '?', '{a,b}', '{a*,b:?}', '[ab]', '[^a]', '[a-c]', '\\*', '{,a}');
    const tag = fc.array(fc.constantFrom('a', 'b', 'c', ':', '-', '*'), { minLength: 1, maxLength: 7 }).map((cs) => cs.join(''));
    fc.assert(
      fc.property(fc.boolean(), fc.array(token, { minLength: 1, maxLength: 5 }), fc.array(tag, { minLength: 1, maxLength: 20 }), (negate, tokens, tags) => {
        const pattern = (negate ? '!' : '') + tokens.join('');
        let ours: (tag: string) => boolean;
        try {
          ours = compileTagGlob(pattern, 'tag');
        } catch (error) {
          // Refused syntax (here only "**" inside a segment) is tested below.
          expect(error).toMatchObject({ message: expect.stringMatching(/stands alone/) });
          return;
        }
        const theirs = picomatch(pattern, { dot: true });
        for (const t of tags) expect([pattern, t, ours(t)]).toEqual([pattern, t, theirs(t)]);
      }),
      { numRuns: 2000 },
    );
  });

  it.each([
    ['(a|b)', /extglob/],
    ['+(a)', /extglob/],
    ['a|b', /extglob/],
    ['[!a]x', /\[\^\.\.\.\]/],
    ['[[:alpha:]]', /POSIX/],
    ['{1..3}', /ranges/],
    ['{a}', /two alternatives/],
    ['{}', /two alternatives/],
    ['!', /nothing follows/],
    ['tool:**', /stands alone/],
    ['**{a,b}', /stands alone/],
    ['', /non-empty glob/],
  ])('refuses %s, which picomatch reads its own way, saying what it takes', (pattern, why) => {
    expect(() => compileTagGlob(pattern, 'find option "tag"')).toThrow(expect.objectContaining({ code: 'INVALID_SNAPSHOT_QUERY', message: expect.stringMatching(why) }));
  });

  it('takes an escaped special character literally', () => {
    expect(compileTagGlob('run\\(1\\)', 'tag')('run(1)')).toBe(true);
    expect(compileTagGlob('a\\|b', 'tag')('a|b')).toBe(true);
  });
});
