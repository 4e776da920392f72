import fs from 'node:fs';
import { analyse } from './src/pdf/analyse.js';
try { const a = await analyse(new Uint8Array(fs.readFileSync('/tmp/fc/e.pdf'))); console.log(a.encrypted, JSON.stringify(a.fields[0].name), a.fields[0].options); } catch (e) { console.log(String(e)); }
