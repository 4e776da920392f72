// The prepared templates of one engine (a render worker, or the in-process engine): least recently used
// out first, bounded by count and by approximate memory. The engine's composition root builds it with
// sizes from Config and passes it to fill.ts; nothing here lives at module level.
import { createHash } from 'node:crypto';
import { Lru } from '../../lib/lru.js';
import type { FontLibrary } from '../fonts/font-library.js';
import { ScriptSandbox } from '../scripts/sandbox.js';
import type { TemplateAnalysis } from '../types.js';
import { prepareTemplate, type PreparedTemplate } from './prepare.js';

export interface TemplateCacheOptions {
  maxEntries: number;
  maxBytes: number;
  /** the engine's font library, shared by every template it prepares (font-library.ts) */
  fonts?: FontLibrary;
  /**
   * The engine's script sandbox, used by every render of every template it prepares (scripts/sandbox.ts);
   * without one the cache makes its own, so a form's scripts never start a thread per render.
   */
  sandbox?: ScriptSandbox;
}

export class TemplateCache {
  private readonly entries: Lru<string, PreparedTemplate>;
  /** preparations under way: renders arriving meanwhile wait for the same one */
  private readonly preparing = new Map<string, Promise<PreparedTemplate>>();

  private readonly fonts: FontLibrary | undefined;
  private readonly sandbox: ScriptSandbox;

  constructor(opts: TemplateCacheOptions) {
    this.fonts = opts.fonts;
    // Its thread starts with the first render that runs scripts, and does not keep the process alive.
    this.sandbox = opts.sandbox ?? new ScriptSandbox();
    // One template bigger than the whole budget is used once and not kept (Lru's rule).
    this.entries = new Lru(opts.maxEntries, opts.maxBytes, (p) => p.approxBytes);
  }

  /** The template prepared under `cacheKey`, if this cache still holds it. */
  get(cacheKey: string, keepUriLinks = false): PreparedTemplate | undefined {
    return this.entries.get(keyOf(new Uint8Array(0), cacheKey, keepUriLinks));
  }

  /**
   * The template prepared once and kept under `cacheKey` (unique per template version) or, without one,
   * under a hash of its bytes.
   */
  async prepared(
    template: Uint8Array,
    analysis: TemplateAnalysis,
    cacheKey: string | undefined,
    keepUriLinks: boolean,
  ): Promise<PreparedTemplate> {
    const key = keyOf(template, cacheKey, keepUriLinks);
    const hit = this.entries.get(key);
    // The length check catches a caller reusing a key for different bytes (cheaply, not fully).
    if (hit && hit.sourceLength === template.length) return hit;
    let pending = this.preparing.get(key);
    if (!pending) {
      pending = prepareTemplate(template, analysis, { keepUriLinks, fonts: this.fonts, sandbox: this.sandbox }).finally(
        () => this.preparing.delete(key),
      );
      this.preparing.set(key, pending);
      const p = await pending;
      this.entries.set(key, p);
      return p;
    }
    return pending;
  }
}

/** A template prepared with and without URI links is two preparations. */
function keyOf(template: Uint8Array, cacheKey: string | undefined, keepUriLinks: boolean): string {
  const links = keepUriLinks ? ':links' : '';
  return cacheKey !== undefined
    ? `key:${cacheKey}${links}`
    : `sha256:${createHash('sha256').update(template).digest('hex')}${links}`;
}
