// fontkit for the offline render. Requiring the package costs a fresh process ~120-140 ms here, most of
// it compiling its 560 KB and decoding brotli's dictionary, which only WOFF2 fonts need. The build writes
// dist/cli/fontkit.cjs (scripts/bundle-cli.mjs: one file, brotli loaded on first use), and it runs
// through the V8 code cache like the render bundle. Only a render that draws with a fallback font loads
// it: inlined into render.cjs it slowed every other render by the bundle's size.
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import type * as Fontkit from '@cantoo/fontkit';
import { type CachedBundle, loadBundle } from './code-cache.js';

export interface FontkitLoader {
  /** fontkit, loaded on the first call */
  load(): typeof Fontkit;
  /** Writes the bundle's code cache if this run made none (after the work); never throws. */
  save(): void;
}

/** `bundle`: the build's fontkit.cjs (beside this module once bundled); without it, the package. */
export function fontkitLoader(bundle = fileURLToPath(new URL('./fontkit.cjs', import.meta.url))): FontkitLoader {
  let loaded: CachedBundle<typeof Fontkit> | undefined;
  let fontkit: typeof Fontkit | undefined;
  return {
    load() {
      if (fontkit) return fontkit;
      if (existsSync(bundle)) {
        loaded = loadBundle<typeof Fontkit>(bundle);
        fontkit = loaded.exports;
      } else fontkit = createRequire(import.meta.url)('@cantoo/fontkit') as typeof Fontkit;
      return fontkit;
    },
    save: () => loaded?.save(),
  };
}
