import { RecentAnswers } from '../internal/recent-answers';

/**
 * @internal The event types one session knows: those its slices' reducers, machines, sagas,
 * effects, channels and `events` option declare (docs/ARCHITECTURE.md, "Known events").
 * Grows only: a type declared once (a reducer registered at run time, a machine installed)
 * stays known for the life of the session, also after its reducer is removed.
 *
 * @remarks A machine's event descriptors are SCXML prefixes (`error` names `error.execution`,
 * SCXML 3.12.1); every other declaration is an exact type. The exact set answers the hot path in
 * one lookup; the prefixes are consulted only on a miss, and a hit is then added to the set.
 */
export class KnownEvents {
  /** The exact types declared, in declaration order. */
  readonly types = new Set<string>();
  private readonly prefixes: string[] = [];

  /** Declares an exact event type. */
  add(type: string): void {
    this.types.add(type);
    this.recent.clear();
  }

  /** Declares a machine's event descriptor: the type itself and every `<descriptor>.…` type. `'*'` declares nothing. */
  addDescriptor(descriptor: string): void {
    if (descriptor === '*' || descriptor.length === 0) return;
    this.types.add(descriptor);
    if (!this.prefixes.includes(descriptor)) this.prefixes.push(descriptor);
    this.recent.clear();
  }

  /** {@link lookup}'s answers for the last two types (the set only grows, so a true answer stays true). */
  private readonly recent = new RecentAnswers<boolean>((type) => this.lookup(type));

  /**
   * True when `type` was declared (exactly, or under a machine's descriptor). The last two types
   * asked are answered without a lookup (see `RecentAnswers`).
   */
  has(type: string): boolean {
    return this.recent.get(type);
  }

  private lookup(type: string): boolean {
    if (this.types.has(type)) return true;
    for (const prefix of this.prefixes) {
      if (type.startsWith(prefix) && type.charCodeAt(prefix.length) === 46 /* . */) {
        this.types.add(type);
        return true;
      }
    }
    return false;
  }

  /** How many exact types are declared. */
  get size(): number {
    return this.types.size;
  }
}

/**
 * The type of `types` closest to `type` (a typo's likely intent), or `undefined` when none is
 * close: the smallest edit distance (Levenshtein, case-insensitive) of at most a third of the
 * longer name (and at least 2), ties broken by declaration order. O(declared types × length²);
 * run only for a rejected event, and only in the development build (`UnknownEventError.suggestion`).
 */
export function closestType(types: Iterable<string>, type: string): string | undefined {
  const wanted = type.toLowerCase();
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const candidate of types) {
    const limit = Math.max(2, Math.floor(Math.max(candidate.length, type.length) / 3));
    const d = editDistance(wanted, candidate.toLowerCase(), Math.min(limit, bestDistance - 1));
    if (d !== undefined && d < bestDistance) {
      best = candidate;
      bestDistance = d;
    }
  }
  return best;
}

/** Levenshtein distance of `a` and `b`, or `undefined` when it exceeds `max` (stops early). */
function editDistance(a: string, b: string, max: number): number | undefined {
  if (max < 0 || Math.abs(a.length - b.length) > max) return undefined;
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    let rowMin = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a.charCodeAt(i - 1) === b.charCodeAt(j - 1) ? 0 : 1;
      const value = Math.min((previous[j] as number) + 1, (row[j - 1] as number) + 1, (previous[j - 1] as number) + cost);
      row.push(value);
      if (value < rowMin) rowMin = value;
    }
    if (rowMin > max) return undefined;
    previous = row;
  }
  const d = previous[b.length] as number;
  return d <= max ? d : undefined;
}
