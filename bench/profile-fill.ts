// A loop of the corpus bench's fill+flatten of chosen forms, for `node --cpu-prof`: the same template
// cache, font library, data and options as bench/corpus.ts, timed over rounds of CPU time; each round prints
// the median, CPU and page faults per fill, and the CPU of each thread (V8's GC and compiler threads apart).
// Usage: node dist-bench/bench/profile-fill.js FORM.pdf... (env PROFILE_MS: CPU ms per form, default 3000;
// PROFILE_DATA=unicode: the peers bench's Unicode values instead of the corpus bench's)
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { validateData } from '../src/modules/render-data/validate-data.js';
import { analyse } from '../src/pdf/analysis/analyse.js';
import { fillPdf } from '../src/pdf/fill/fill.js';
import { TemplateCache } from '../src/pdf/fill/template-cache.js';
import { FontLibrary } from '../src/pdf/fonts/font-library.js';
import { generateData } from './data.js';
import { unicodeData } from './peer-values.js';
import { threadCpuDelta, threadCpuMs } from './thread-cpu.js';

const cpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

async function main(): Promise<void> {
  const budget = Number(process.env.PROFILE_MS ?? 3000);
  const cache = new TemplateCache({
    maxEntries: 64,
    maxBytes: 512 * 1024 * 1024,
    fonts: new FontLibrary({ shapeCacheEntries: 4096 }),
  });
  for (const pdf of process.argv.slice(2)) {
    const file = path.basename(pdf);
    const bytes = new Uint8Array(readFileSync(pdf));
    const analysis = await analyse(bytes);
    const generated = generateData(analysis.fields).data;
    const data = process.env.PROFILE_DATA === 'unicode' ? unicodeData(analysis, generated) : generated;
    const { values } = validateData(analysis.fields, data, { strict: false, locale: 'en-US', timezone: 'UTC' });
    const fill = () => fillPdf(bytes, analysis, { values, flatten: true }, `corpus:${file}`, cache);
    for (let phase = 0; phase < 3; phase++) {
      const c0 = cpuMs();
      const f0 = process.resourceUsage().minorPageFault;
      const th0 = threadCpuMs();
      const t0 = performance.now();
      const walls: number[] = [];
      while (cpuMs() - c0 < budget) {
        const t = performance.now();
        await fill();
        walls.push(performance.now() - t);
      }
      walls.sort((a, b) => a - b);
      const n = walls.length;
      console.log(
        `${file} round ${phase}: n=${n} median ${walls[n >> 1].toFixed(3)} ms, min ${walls[0].toFixed(3)}, CPU/fill ${((cpuMs() - c0) / n).toFixed(3)} ms, wall/fill ${((performance.now() - t0) / n).toFixed(3)}, page faults/fill ${((process.resourceUsage().minorPageFault - f0) / n).toFixed(0)}; threads (ms): ${threadCpuDelta(th0, threadCpuMs())}`,
      );
    }
  }
}

await main();
