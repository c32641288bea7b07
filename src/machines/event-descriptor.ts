/**
 * Splits an SCXML `event` attribute (`"a b.c error.*"`) into normalised descriptors:
 * `'*'` stays, a trailing `.*` or `.` is dropped (SCXML 3.12.1: `foo`, `foo.` and `foo.*`
 * are equivalent).
 */
export function parseEventDescriptors(events: string): string[] {
  return events
    .split(/\s+/)
    .filter((d) => d.length > 0)
    .map((d) => (d === '*' ? d : d.replace(/\.\*$/, '').replace(/\.$/, '')));
}

/**
 * True when the event name matches one of the descriptors by token prefix (SCXML 3.12.1):
 * a descriptor matches a name equal to it or starting with it followed by `.`; `*` matches
 * every name.
 *
 * @example
 * ```ts
 * eventMatches(['error'], 'error.send.failed'); // true
 * eventMatches(['error'], 'errors');            // false
 * ```
 */
export function eventMatches(descriptors: readonly string[], name: string): boolean {
  for (const d of descriptors) {
    if (d === '*' || d === name || (name.startsWith(d) && name.charAt(d.length) === '.')) return true;
  }
  return false;
}
