// A least-recently-used cache of prepared templates, bounded by count and by approximate memory.
import type { PreparedTemplate } from './prepare.js';

export interface TemplateCacheOptions {
  maxEntries: number;
  maxBytes: number;
}

export class TemplateCache {
  /** Map iteration order is insertion order: the first key is the least recently used. */
  private readonly entries = new Map<string, PreparedTemplate>();
  private bytes = 0;

  constructor(private readonly opts: TemplateCacheOptions) {}

  get(key: string): PreparedTemplate | undefined {
    const hit = this.entries.get(key);
    if (hit) {
      this.entries.delete(key);
      this.entries.set(key, hit);
    }
    return hit;
  }

  set(key: string, prepared: PreparedTemplate): void {
    this.delete(key);
    // One template bigger than the whole budget is used once and not kept.
    if (prepared.approxBytes > this.opts.maxBytes || this.opts.maxEntries < 1) return;
    this.entries.set(key, prepared);
    this.bytes += prepared.approxBytes;
    for (const [k] of this.entries) {
      if (this.entries.size <= this.opts.maxEntries && this.bytes <= this.opts.maxBytes) break;
      this.delete(k);
    }
  }

  delete(key: string): void {
    const old = this.entries.get(key);
    if (!old) return;
    this.entries.delete(key);
    this.bytes -= old.approxBytes;
  }

  has(key: string): boolean {
    return this.entries.has(key);
  }

  stats(): { entries: number; bytes: number } {
    return { entries: this.entries.size, bytes: this.bytes };
  }
}
