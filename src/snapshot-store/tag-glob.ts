// The tag globs of the in-session snapshot catalogue, without picomatch (the core installs only
// rxjs, zod and immer). The syntax is the part of picomatch's that tags use, with picomatch's
// meaning (test/snapshots/tag-glob.test.ts compares both), so a query answers the same from the
// catalogue as from createSnapshotStore(); the rest is refused. One difference, on purpose:
// picomatch's path rules do not apply (a `*` never matching a "." or ".." segment, `*.*` not
// matching "a.", a leading "./" or a trailing "/" ignored): tags are labels, not paths.
import { SnapshotStoreError } from './store-contract';
import { clip } from '../internal/quote';

/**
 * Compiles a tag glob: `*` (any run of characters but `/`), `?` (one character but `/`), `**` (as
 * a whole `/`-separated segment, or the whole glob: any number of segments), `[abc]`, `[a-z]`,
 * `[^a]` (a class, negated with `^`), `{a,b}` (alternatives, nestable, holding globs), a leading
 * `!` (every tag but those), `\` to take the next character literally. Every other character
 * matches itself.
 * @throws {@link SnapshotStoreError} `INVALID_SNAPSHOT_QUERY` for an empty glob, and for the
 * syntax picomatch reads differently from the shell or that only picomatch has: `(`, `)` and `|`
 * (extglobs), `[!...]` (write `[^...]`), `[[:class:]]`, `{1..3}`, `{}` and `{a}` (no comma), `**`
 * inside a segment (`tool:**`: picomatch reads it as `*` or across slashes depending on what follows).
 * Escape such a character with `\` to match it literally.
 */
export function compileTagGlob(glob: unknown, what: string): (tag: string) => boolean {
  if (typeof glob !== 'string' || glob.length === 0) throw new SnapshotStoreError('INVALID_SNAPSHOT_QUERY', `${what} must be a non-empty glob such as "tool:*"`);
  // Leading `!`s toggle, as in picomatch (`!!a` is `a`).
  let bangs = 0;
  while (glob[bangs] === '!') bangs++;
  const negated = bangs % 2 === 1;
  const body = glob.slice(bangs);
  const refuse = (why: string): never => {
    throw new SnapshotStoreError('INVALID_SNAPSHOT_QUERY', `${what} ${clip(JSON.stringify(glob))}: ${why}. The session's own catalogue takes *, ?, **, [a-z], [^a], {a,b}, a leading ! and \\ escapes (createSnapshotStore from rxslice/snapshot-store takes all of picomatch).`);
  };
  if (body.length === 0) refuse('nothing follows the "!"');
  const source = translate(body, 0, body.length, refuse);
  const re = new RegExp(`^${source}$`, 's');
  return negated ? (tag) => !re.test(tag) : (tag) => re.test(tag);
}

const SPECIAL = /[.*+?^${}()|[\]\\]/g;
const literal = (c: string): string => c.replace(SPECIAL, '\\$&');

/** The regular expression source of `glob[from, to)`. */
function translate(glob: string, from: number, to: number, refuse: (why: string) => never): string {
  let out = '';
  for (let i = from; i < to; i++) {
    const c = glob[i] as string;
    if (c === '\\') {
      i++;
      out += i < to ? literal(glob[i] as string) : '\\\\';
    } else if (c === '*') {
      let j = i;
      while (j + 1 < to && glob[j + 1] === '*') j++;
      const globstar = j > i && (i === from || glob[i - 1] === '/') && (j + 1 === to || glob[j + 1] === '/');
      if (j > i && !globstar) refuse('"**" stands alone between slashes (a/**/b, **/b, a/**) or as the whole glob; write "*" elsewhere');
      if (!globstar) out += '[^/]*';
      else if (j + 1 === to && i > from) out = `${out.slice(0, -1)}(?:/.*)?`; // `a/**` also matches `a`
      else if (j + 1 < to) {
        out += '(?:.*/)?'; // `**/x` also matches `x`
        j++;
      } else out += '.*';
      i = j;
    } else if (c === '?') out += '[^/]';
    else if (c === '(' || c === ')' || c === '|') refuse(`"${c}" starts or continues an extglob, which only picomatch reads`);
    else if (c === '[') {
      const end = classEnd(glob, i, to);
      if (end < 0) {
        out += '\\[';
        continue;
      }
      const inner = glob.slice(i + 1, end);
      if (inner.startsWith('!')) refuse('write [^...] for a negated class (picomatch reads [!...] as a class holding "!")');
      if (inner.startsWith('[:') || inner.includes('[:')) refuse('POSIX classes such as [[:alpha:]] are picomatch-only');
      const negatedClass = inner.startsWith('^');
      const members = (negatedClass ? inner.slice(1) : inner).replace(/[\\\]^[]/g, '\\$&');
      out += negatedClass ? `[^/${members}]` : `[${members}]`;
      i = end;
    } else if (c === '{') {
      const parts = braceParts(glob, i, to);
      if (parts === undefined) {
        out += '\\{';
        continue;
      }
      if (parts.items.some(([a, b]) => /^-?\d+\.\.-?\d+$|^[a-zA-Z]\.\.[a-zA-Z]$/.test(glob.slice(a, b)))) refuse('ranges such as {1..3} are picomatch-only');
      if (parts.items.length < 2) refuse('braces need at least two alternatives, such as {plan,tool}');
      const alternatives = parts.items.map(([a, b]) => translate(glob, a, b, refuse));
      // picomatch drops empty alternatives (`a{,b}` is `a` or `ab`, `{a,}` is `a`).
      const kept = alternatives.filter((alt) => alt.length > 0);
      out += kept.length === alternatives.length ? `(?:${kept.join('|')})` : `(?:${kept.join('|')})?`;
      i = parts.end;
    } else out += literal(c);
  }
  return out;
}

/** The index of the `]` closing the class opened at `open`, or -1 when none does (a literal `[`). */
function classEnd(glob: string, open: number, to: number): number {
  // A `]` right after `[` or `[^` is a member, as in the shell.
  let i = open + 1;
  if (glob[i] === '^' || glob[i] === '!') i++;
  if (glob[i] === ']') i++;
  for (; i < to; i++) {
    if (glob[i] === '\\') i++;
    else if (glob[i] === ']') return i;
  }
  return -1;
}

/** The alternatives (index ranges) of the braces opened at `open` and the index of the `}` closing them; `undefined` when unclosed. */
function braceParts(glob: string, open: number, to: number): { items: [number, number][]; end: number } | undefined {
  const items: [number, number][] = [];
  let depth = 0;
  let start = open + 1;
  for (let i = open + 1; i < to; i++) {
    const c = glob[i];
    if (c === '\\') i++;
    else if (c === '{') depth++;
    else if (c === '}' && depth > 0) depth--;
    else if (c === '}') {
      items.push([start, i]);
      return { items, end: i };
    } else if (c === ',' && depth === 0) {
      items.push([start, i]);
      start = i + 1;
    }
  }
  return undefined;
}
