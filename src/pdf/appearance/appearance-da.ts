// The variable-text attributes of a field: /DA (font, size, colour), /Q (alignment), looked up
// on the widget, then the field's /Parent chain, then /AcroForm, as viewers do.
import { type PDFDict, PDFHexString, PDFNumber, PDFString, type PDFFont, type StandardFonts } from '@cantoo/pdf-lib';
import { getDict, getName, inherited, resolve } from '../pdf-objects.js';
import { standardFaceFor, type FontSet } from '../fonts/fonts.js';

export interface TextStyle {
  /** Standard-14 face standing in for the /DA font; it draws everything WinAnsi can encode. */
  font: PDFFont;
  /** 0 = auto size */
  size: number;
  /** Fill colour operator, e.g. "0 g" or "0 0 1 rg" */
  color: string;
  /** 0 left, 1 centre, 2 right */
  quadding: 0 | 1 | 2;
}

const COLOR_OPS: Record<string, number> = { g: 1, rg: 3, k: 4 };

/** Parses "/Helv 0 Tf 0 g" style strings; tolerant of junk (malformed DAs are common). */
function parseDa(da: string): { fontName?: string; size: number; color: string } {
  const tokens = da.split(/\s+/).filter(Boolean);
  let fontName: string | undefined;
  let size = 0;
  let color = '0 g';
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i];
    if (t === 'Tf' && i >= 2 && tokens[i - 2].startsWith('/')) {
      fontName = tokens[i - 2].slice(1);
      const s = Number(tokens[i - 1]);
      size = Number.isFinite(s) && s > 0 ? Math.min(s, 1000) : 0;
    } else if (t in COLOR_OPS && i >= COLOR_OPS[t]) {
      const nums = tokens.slice(i - COLOR_OPS[t], i).map(Number);
      if (nums.every((n) => Number.isFinite(n)))
        color = `${nums.map((n) => Math.min(Math.max(n, 0), 1)).join(' ')} ${t}`;
    }
  }
  return { fontName, size, color };
}

function daString(widget: PDFDict, acroForm: PDFDict | undefined): string {
  const v = inherited(widget, 'DA') ?? (acroForm ? resolve(acroForm, 'DA') : undefined);
  return v instanceof PDFString || v instanceof PDFHexString ? v.decodeText() : '';
}

/** BaseFont of the /DA font resource (widget /DR, then /AcroForm /DR): it names the face better than "F3". */
function baseFontName(fontName: string, widget: PDFDict, acroForm: PDFDict | undefined): string {
  for (const holder of [widget, acroForm]) {
    const dr = holder && getDict(holder, 'DR');
    const fonts = dr && getDict(dr, 'Font');
    const res = fonts && getDict(fonts, fontName);
    const base = res && getName(res, 'BaseFont')?.decodeText();
    if (base) return base;
  }
  return fontName;
}

type ParsedStyle = Omit<TextStyle, 'font'> & { face: StandardFonts };

/**
 * Parsed per widget once: the engine never writes /DA, /Q or /DR, so a widget of a prepared
 * (cached) template keeps its style from render to render.
 */
const styles = new WeakMap<PDFDict, ParsedStyle>();

export function textStyle(widget: PDFDict, acroForm: PDFDict | undefined, fonts: FontSet): TextStyle {
  let style = styles.get(widget);
  if (!style) {
    const da = parseDa(daString(widget, acroForm));
    const q = inherited(widget, 'Q') ?? (acroForm ? resolve(acroForm, 'Q') : undefined);
    const qn = q instanceof PDFNumber ? q.asNumber() : 0;
    style = {
      face: standardFaceFor(da.fontName ? baseFontName(da.fontName, widget, acroForm) : 'Helvetica'),
      size: da.size,
      color: da.color,
      quadding: qn === 1 || qn === 2 ? qn : 0,
    };
    styles.set(widget, style);
  }
  return { font: fonts.standardFont(style.face), size: style.size, color: style.color, quadding: style.quadding };
}
