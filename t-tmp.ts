import { detectFields } from './src/pdf/detect/detect.js';
import { printedForm, scannedPage, halfForm } from './test/helpers/flat-forms.js';
for (const b of [await printedForm(), await scannedPage(), await halfForm()]) {
  const r = await detectFields(b);
  console.log(JSON.stringify({ ...r, detections: r.detections.map((d) => [d.key, d.type, d.rect.map(Math.round).join(','), d.label, d.confidence, d.cells ?? '', d.dateFormat ?? '']) }));
}
