import fs from 'node:fs';
import { detectFields } from './src/pdf/detect/detect.js';
const r = await detectFields(new Uint8Array(fs.readFileSync('/work/shared/corpus/pdfs/negative-truncated-scan.pdf'))).catch((e) => e);
console.log(r instanceof Error ? [r.name, (r as any).code, r.message] : JSON.stringify(r).slice(0, 500));
