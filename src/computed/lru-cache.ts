/**
 * @internal A least-recently-used cache of at most `capacity` entries, on `Map`'s insertion
 * order: a hit moves the entry to the back, an insert past capacity drops the front and
 * hands it to `onEvict`. Every operation is O(1).
 */
export class LruCache<TKey, TValue> {
  private readonly map = new Map<TKey, TValue>();

  constructor(
    readonly capacity: number,
    private readonly onEvict: (value: TValue, key: TKey) => void,
  ) {}

  get size(): number {
    return this.map.size;
  }

  has(key: TKey): boolean {
    return this.map.has(key);
  }

  /** The entry for `key`, marked most recently used. */
  get(key: TKey): TValue | undefined {
    const value = this.map.get(key);
    if (value === undefined) return undefined;
    this.map.delete(key);
    this.map.set(key, value);
    return value;
  }

  set(key: TKey, value: TValue): void {
    this.map.delete(key);
    this.map.set(key, value);
    while (this.map.size > this.capacity) {
      const oldest = this.map.keys().next().value as TKey;
      const evicted = this.map.get(oldest) as TValue;
      this.map.delete(oldest);
      this.onEvict(evicted, oldest);
    }
  }

  keys(): TKey[] {
    return [...this.map.keys()];
  }
}
