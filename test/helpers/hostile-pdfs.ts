import { constants, createDeflateRaw, deflateSync } from 'node:zlib';

// Hand-built hostile PDFs. Each is a small, well-formed file around one attack, so the test shows that the
// attack itself, not some other defect, is what the service survives.

type Obj = string | Buffer;

/** Assemble numbered objects (1..n) with a correct classic xref table and trailer. */
export function buildPdf(objects: Obj[], trailerExtra = '', opts: { prev?: number } = {}): Buffer {
  const parts: Buffer[] = [Buffer.from('%PDF-1.7\n%\xe2\xe3\xcf\xd3\n', 'latin1')];
  const offsets: number[] = [];
  let pos = parts[0].length;
  objects.forEach((o, i) => {
    offsets.push(pos);
    const body = Buffer.concat([
      Buffer.from(`${i + 1} 0 obj\n`),
      typeof o === 'string' ? Buffer.from(o, 'latin1') : o,
      Buffer.from('\nendobj\n'),
    ]);
    parts.push(body);
    pos += body.length;
  });
  const xref = [
    `xref\n0 ${objects.length + 1}\n`,
    '0000000000 65535 f \n',
    ...offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`),
  ].join('');
  const prev = opts.prev !== undefined ? ` /Prev ${opts.prev}` : '';
  parts.push(
    Buffer.from(
      `${xref}trailer\n<< /Size ${objects.length + 1} /Root 1 0 R${prev} ${trailerExtra}>>\nstartxref\n${pos}\n%%EOF\n`,
    ),
  );
  return Buffer.concat(parts);
}

function stream(dict: string, data: Buffer): Buffer {
  return Buffer.concat([
    Buffer.from(`<< ${dict} /Length ${data.length} >>\nstream\n`),
    data,
    Buffer.from('\nendstream'),
  ]);
}

/** One page, one text field: the skeleton the attacks are added to. Objects 1-4. */
function formSkeleton(extraFieldKeys = '', extraCatalog = ''): Obj[] {
  return [
    `<< /Type /Catalog /Pages 2 0 R /AcroForm << /Fields [4 0 R] >> ${extraCatalog}>>`,
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Annots [4 0 R] >>',
    `<< /Type /Annot /Subtype /Widget /FT /Tx /T (name) /Rect [50 700 300 720] /P 3 0 R ${extraFieldKeys}>>`,
  ];
}

/** A form whose page content is a flate bomb: a few hundred KB that inflate to `inflatedMb` MB. */
export function decompressionBomb(inflatedMb = 512): Buffer {
  const objs = formSkeleton();
  const bomb = deflateSync(Buffer.alloc(inflatedMb * 1024 * 1024), { level: 9 });
  objs[2] = '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Annots [4 0 R] /Contents 5 0 R >>';
  objs.push(stream('/Filter /FlateDecode', bomb));
  // the same bomb as an object stream, which a parser must inflate to read the objects inside
  objs.push(stream('/Type /ObjStm /N 1 /First 4 /Filter /FlateDecode', bomb));
  return buildPdf(objs);
}

/**
 * zlib data of `mib` MiB of zeros, built without ever holding them: one MiB deflated with a full
 * flush (which resets the compressor, so every further MiB encodes to the same bytes) repeated, then
 * an empty final block and the Adler-32 of n zeros (a = 1, b = n mod 65521).
 */
async function zerosDeflated(mib: number): Promise<Buffer> {
  const chunk = await new Promise<Buffer>((resolve, reject) => {
    const z = createDeflateRaw({ level: 9 });
    const out: Buffer[] = [];
    z.on('data', (d: Buffer) => out.push(d));
    z.on('error', reject);
    const zeros = Buffer.alloc(1024 * 1024);
    // the second MiB's bytes: the first carries no state from before, the second starts on a reset one
    z.write(zeros);
    z.flush(constants.Z_FULL_FLUSH, () => {
      const first = Buffer.concat(out).length;
      z.write(zeros);
      z.flush(constants.Z_FULL_FLUSH, () => {
        resolve(Buffer.concat(out).subarray(first));
        z.close();
      });
    });
  });
  const adler = Buffer.alloc(4);
  adler.writeUInt32BE(((((mib * 1024 * 1024) % 65521) << 16) | 1) >>> 0);
  return Buffer.concat([Buffer.from([0x78, 0xda]), ...Array(mib).fill(chunk), Buffer.from([0x03, 0x00]), adler]);
}

/**
 * Flate over Flate (issue 27): a few KB whose `/Filter [/FlateDecode /FlateDecode]` stream inflates to
 * `gib` GiB of zeros (whitespace to a content parser). `where` puts it in the page's content, or in a
 * form XObject the page draws (read by text extraction, not by the filler), or in a check box's
 * on-appearance (read when a template is prepared for filling).
 */
export async function nestedFlateBomb(where: 'page' | 'xobject' | 'appearance' = 'page', gib = 2): Promise<Buffer> {
  const inner = await zerosDeflated(gib * 1024);
  const data = deflateSync(inner, { level: 9 });
  const bomb = stream('/Filter [/FlateDecode /FlateDecode]', data);
  const objs = formSkeleton('/F 4'); // printed: a flattened render draws it into the page
  if (where === 'page') {
    objs[2] = '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Annots [4 0 R] /Contents 5 0 R >>';
    objs.push(bomb);
  } else if (where === 'xobject') {
    objs[2] =
      '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Annots [4 0 R] /Contents 5 0 R /Resources << /XObject << /X1 6 0 R >> >> >>';
    objs.push(stream('', Buffer.from('q /X1 Do Q')));
    objs.push(Buffer.concat([Buffer.from('<< /Type /XObject /Subtype /Form /BBox [0 0 10 10]'), bomb.subarray(2)]));
  } else {
    objs[0] = '<< /Type /Catalog /Pages 2 0 R /AcroForm << /Fields [4 0 R 5 0 R] >> >>';
    objs[2] = '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Annots [4 0 R 5 0 R] >>';
    objs.push(
      '<< /Type /Annot /Subtype /Widget /FT /Btn /T (tick) /F 4 /Rect [50 650 70 670] /P 3 0 R /AS /Off /AP << /N << /Yes 6 0 R /Off 7 0 R >> >> >>',
    );
    objs.push(Buffer.concat([Buffer.from('<< /Type /XObject /Subtype /Form /BBox [0 0 20 20]'), bomb.subarray(2)]));
    objs.push(stream('/Type /XObject /Subtype /Form /BBox [0 0 20 20]', Buffer.from('')));
  }
  return buildPdf(objs);
}

/** A form with a one-line field `one` and a multi-line field `multi`, both auto-sized Helvetica, printed. */
export function lineAndMultiLineForm(): Buffer {
  return buildPdf([
    '<< /Type /Catalog /Pages 2 0 R /AcroForm << /Fields [4 0 R 5 0 R] /DR << /Font << /Helv 6 0 R >> >> /DA (/Helv 0 Tf 0 g) >> >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 400 400] /Annots [4 0 R 5 0 R] >>',
    '<< /Type /Annot /Subtype /Widget /FT /Tx /T (one) /F 4 /Rect [20 300 320 320] /P 3 0 R /DA (/Helv 0 Tf 0 g) >>',
    '<< /Type /Annot /Subtype /Widget /FT /Tx /T (multi) /Ff 4096 /F 4 /Rect [20 100 320 250] /P 3 0 R /DA (/Helv 0 Tf 0 g) >>',
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>',
  ]);
}

/** Arrays nested `depth` deep inside the field dictionary (recursive parsers overflow their stack). */
export function deeplyNested(depth = 100_000): Buffer {
  return buildPdf(formSkeleton(`/Junk ${'['.repeat(depth)}${']'.repeat(depth)}`));
}

/** A field whose /Kids contain itself and whose /Parent points at itself. */
export function cyclicFields(): Buffer {
  const objs = formSkeleton('/Parent 4 0 R /Kids [4 0 R]');
  return buildPdf(objs);
}

/** A page tree whose leaf lists the root as a kid again. */
export function cyclicPages(): Buffer {
  const objs = formSkeleton();
  objs[2] = '<< /Type /Pages /Parent 2 0 R /Kids [2 0 R 3 0 R] /Count 2 /MediaBox [0 0 612 792] /Annots [4 0 R] >>';
  return buildPdf(objs);
}

/** A trailer whose /Prev points back at its own xref section. */
export function xrefLoop(): Buffer {
  const first = buildPdf(formSkeleton());
  const startxref = Number(/startxref\n(\d+)/.exec(first.toString('latin1'))![1]);
  return buildPdf(formSkeleton(), '', { prev: startxref });
}

/** A page tree that claims a billion pages. */
export function hugePageCount(): Buffer {
  const objs = formSkeleton();
  objs[1] = '<< /Type /Pages /Kids [3 0 R] /Count 1000000000 >>';
  return buildPdf(objs);
}

/** A page tree with really many pages (each a tiny dictionary). */
export function manyPages(n = 20_000): Buffer {
  const objs = formSkeleton();
  const kids: string[] = ['3 0 R'];
  for (let i = 0; i < n; i++) {
    kids.push(`${objs.length + 1} 0 R`);
    objs.push('<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] >>');
  }
  objs[1] = `<< /Type /Pages /Kids [${kids.join(' ')}] /Count ${kids.length} >>`;
  return buildPdf(objs);
}

/** A working form full of JavaScript: document open action, field actions, a format script. */
export function javascriptLaden(): Buffer {
  const js = '(app.alert\\("hi"\\); this.submitForm\\("http://127.0.0.1:9/x"\\);)';
  return buildPdf(
    formSkeleton(
      `/AA << /K << /S /JavaScript /JS ${js} >> /F << /S /JavaScript /JS (AFNumber_Format\\(2, 0, 0, 0, "", true\\);) >> >>`,
      `/OpenAction << /S /JavaScript /JS ${js} >> /Names << /JavaScript << /Names [(a) << /S /JavaScript /JS ${js} >>] >> >>`,
    ),
  );
}

/**
 * Every kind of active content at once: /OpenAction and catalog /AA scripts, the /Names JavaScript
 * and EmbeddedFiles trees, a page /AA Launch, field /AA scripts, a SubmitForm button, a Launch link
 * chained to a script, a file attachment, a web link and (harmless) a GoTo link.
 */
export function activeContent(): Buffer {
  const js = (s: string) => `<< /S /JavaScript /JS (${s}) >>`;
  const file = Buffer.from('attached payload');
  return buildPdf([
    `<< /Type /Catalog /Pages 2 0 R /AcroForm << /Fields [4 0 R 9 0 R] /CO [4 0 R] >> /OpenAction ${js('app.alert\\(1\\)')} /AA << /WC ${js('close')} >> /Names << /JavaScript << /Names [(a) 6 0 R] >> /EmbeddedFiles << /Names [(f.txt) 7 0 R] >> >> /Outlines 13 0 R >>`,
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /AA << /O << /S /Launch /F (calc.exe) >> >> /Annots [4 0 R 5 0 R 8 0 R 9 0 R 10 0 R 12 0 R] >>',
    `<< /Type /Annot /Subtype /Widget /FT /Tx /T (name) /F 4 /Rect [50 700 300 720] /P 3 0 R /AA << /K ${js('keystroke')} /F ${js('AFNumber_Format\\(2, 0, 0, 0, "", true\\);')} >> >>`,
    '<< /Type /Annot /Subtype /Link /Rect [50 600 200 620] /A << /S /URI /URI (https://example.com/help) >> >>',
    js('named'),
    '<< /Type /Filespec /F (f.txt) /EF << /F 11 0 R >> >>',
    `<< /Type /Annot /Subtype /Link /Rect [50 560 200 580] /A << /S /Launch /F (cmd.exe) /Next ${js('next')} >> >>`,
    '<< /Type /Annot /Subtype /Widget /FT /Btn /Ff 65536 /T (send) /F 4 /Rect [50 500 150 520] /P 3 0 R /A << /S /SubmitForm /F << /FS /URL /F (http://127.0.0.1:9/x) >> >> >>',
    '<< /Type /Annot /Subtype /FileAttachment /Rect [400 700 420 720] /FS 7 0 R >>',
    Buffer.concat([
      Buffer.from(`<< /Type /EmbeddedFile /Length ${file.length} >>\nstream\n`),
      file,
      Buffer.from('\nendstream'),
    ]),
    '<< /Type /Annot /Subtype /Link /Rect [50 460 200 480] /A << /S /GoTo /D [3 0 R /Fit] >> >>',
    '<< /Type /Outlines /First 14 0 R /Last 14 0 R /Count 1 >>',
    '<< /Title (Start) /Parent 13 0 R /A << /S /Launch /F (bookmark.exe) /Next << /S /JavaScript /JS (bookmarkScript) >> >> >>',
  ]);
}
