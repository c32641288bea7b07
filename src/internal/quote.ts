/** How many characters of a user-supplied string an error message quotes (see {@link quote}). */
export const QUOTED_CHARS = 200;

/** `String(value)`, never throwing (a hostile `toString`). */
function text(value: unknown): string {
  try {
    return typeof value === 'string' ? value : String(value);
  } catch {
    return '(a value that cannot be shown)';
  }
}

/**
 * @internal Bounds a user-supplied string for an error message, without quotation marks: the
 * string itself when it has at most `max` characters, else its first `max` characters, `…`, and
 * its length. Messages built from untrusted input (an event type, a slice name, a key, a path, a
 * line of JSON, a thrown error's message) stay this short whatever the input; the whole value
 * stays on the error as a property where it is useful (`eventType`, `sliceName`, `cause`, ...).
 * @example
 * ```ts
 * clip('x'.repeat(10_000_000)); // 'xxx…x… (10000000 characters)' (200 x)
 * ```
 */
export function clip(value: unknown, max: number = QUOTED_CHARS): string {
  const s = text(value);
  if (s.length <= max) return s;
  // Never cut a surrogate pair in two.
  const end = s.charCodeAt(max - 1) >= 0xd800 && s.charCodeAt(max - 1) <= 0xdbff ? max - 1 : max;
  return `${s.slice(0, end)}… (${s.length} characters)`;
}

/**
 * @internal Quotes a user-supplied string for an error message: `"name"`, or for a string longer
 * than `max` characters its first `max` characters and its length, `"nnn…" (10485760 characters)`.
 * @example
 * ```ts
 * `Event ${quote(type)} is not declared`; // Event "plan/stepAdded" is not declared
 * ```
 */
export function quote(value: unknown, max: number = QUOTED_CHARS): string {
  const s = text(value);
  if (s.length <= max) return `"${s}"`;
  const end = s.charCodeAt(max - 1) >= 0xd800 && s.charCodeAt(max - 1) <= 0xdbff ? max - 1 : max;
  return `"${s.slice(0, end)}…" (${s.length} characters)`;
}

/** How many characters of a cause's message an error message quotes (see {@link messageOf}). */
export const CAUSE_CHARS = 1000;

/**
 * @internal The message of a cause (an `Error`'s `message`, else the value as a string) for
 * another error's message, bounded by {@link clip} to {@link CAUSE_CHARS} characters; never
 * throws (a hostile `message` getter or `toString`). The cause itself stays on the error (`cause`).
 */
export function messageOf(cause: unknown): string {
  try {
    return clip(cause instanceof Error ? cause.message : cause, CAUSE_CHARS);
  } catch {
    return '(an error that cannot be described)';
  }
}
