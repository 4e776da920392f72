import fs from 'node:fs';
import { PDFDocument, PDFHexString, PDFName, PDFString } from '@cantoo/pdf-lib';
import { analyse } from './src/pdf/analyse.js';
const doc = await PDFDocument.create();
const page = doc.addPage([300,300]);
const ctx = doc.context;
const w = ctx.register(ctx.obj({ Type: 'Annot', Subtype: 'Widget', Rect: [10,10,100,30], P: page.ref, T: (process.argv[3]==='s' ? PDFString.of('abc') : PDFHexString.fromText('名前 Zoë')), FT: 'Ch', Ff: 1<<17 } as never));
page.node.addAnnot(w);
doc.catalog.set(PDFName.of('AcroForm'), ctx.obj({ Fields: [w] }));
doc.encrypt({ userPassword: '', ownerPassword: 'owner', algorithm: (process.argv[2] ?? 'AES-256') as never });
const bytes = await doc.save({ useObjectStreams: false, updateFieldAppearances: false });
fs.writeFileSync('/tmp/fc/enc.pdf', bytes);
try { console.log(JSON.stringify((await analyse(bytes)).fields)); } catch (e) { console.log(String(e)); }
