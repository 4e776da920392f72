/**
 * A least-recently-used map bounded by entry count and, optionally, by a total weight (e.g. bytes).
 * An entry heavier than the whole budget is not kept.
 */
export class Lru<K, V> {
  private readonly map = new Map<K, V>();
  private weight = 0;

  constructor(
    private readonly maxEntries: number,
    private readonly maxWeight = Infinity,
    private readonly weigh: (value: V) => number = () => 0,
  ) {}

  get(key: K): V | undefined {
    const v = this.map.get(key);
    if (v !== undefined) {
      this.map.delete(key);
      this.map.set(key, v);
    }
    return v;
  }

  /** The value for `key`, made by `make` and kept when missing (when it fits the bounds). */
  remember(key: K, make: () => V): V {
    let v = this.get(key);
    if (v === undefined) {
      v = make();
      this.set(key, v);
    }
    return v;
  }

  /** Whether the key is held, without counting as a use. */
  has(key: K): boolean {
    return this.map.has(key);
  }

  set(key: K, value: V): void {
    this.delete(key);
    const w = this.weigh(value);
    if (w > this.maxWeight) return;
    this.map.set(key, value);
    this.weight += w;
    while (this.map.size > this.maxEntries || this.weight > this.maxWeight)
      this.delete(this.map.keys().next().value as K);
  }

  delete(key: K): void {
    const v = this.map.get(key);
    if (v === undefined) return;
    this.map.delete(key);
    this.weight -= this.weigh(v);
  }
}
