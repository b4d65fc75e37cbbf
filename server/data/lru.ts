/**
 * A least-recently-used map: Map keeps insertion order, so the first key is
 * the oldest. Bounded by `capacity` in units of `weigh` (default: one per
 * entry, so capacity is an entry count).
 */
export class Lru<K, V> {
  readonly #entries = new Map<K, { value: V; weight: number }>();
  readonly #weigh: (value: V) => number;
  #weight = 0;

  constructor(
    readonly capacity: number,
    weigh?: (value: V) => number,
  ) {
    this.#weigh = weigh ?? (() => 1);
  }

  get(key: K): V | undefined {
    const entry = this.#entries.get(key);
    if (entry === undefined) return undefined;
    this.#entries.delete(key);
    this.#entries.set(key, entry);
    return entry.value;
  }

  set(key: K, value: V): void {
    this.delete(key);
    const weight = this.#weigh(value);
    if (weight > this.capacity) return;
    this.#entries.set(key, { value, weight });
    this.#weight += weight;
    while (this.#weight > this.capacity) {
      const oldest = this.#entries.keys().next();
      if (oldest.done) break;
      this.delete(oldest.value);
    }
  }

  delete(key: K): void {
    const entry = this.#entries.get(key);
    if (entry === undefined) return;
    this.#entries.delete(key);
    this.#weight -= entry.weight;
  }

  clear(): void {
    this.#entries.clear();
    this.#weight = 0;
  }

  get size(): number {
    return this.#entries.size;
  }

  /** Sum of the entries' weights. */
  get weight(): number {
    return this.#weight;
  }
}
