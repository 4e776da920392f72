// Annotation flags that decide where a widget shows (PDF 32000-1, 12.5.3).
import type { PDFDict } from '@cantoo/pdf-lib';
import { getNumber } from '../pdf-objects.js';

const HIDDEN = 1 << 1;
const PRINT = 1 << 2;
const NO_ROTATE = 1 << 4;
const NO_VIEW = 1 << 5;

const flags = (w: PDFDict) => getNumber(w, 'F') ?? 0;

/** Shown on screen: neither Hidden nor NoView. */
export const isVisible = (w: PDFDict): boolean => !(flags(w) & (HIDDEN | NO_VIEW));

/** What a viewer prints, and so what flattening draws: visible widgets with the Print flag. */
export const isPrinted = (w: PDFDict): boolean => (flags(w) & (HIDDEN | NO_VIEW | PRINT)) === PRINT;

/** NoRotate: viewers keep the widget upright, turning it about its upper-left corner against /Rotate. */
export const isNoRotate = (w: PDFDict): boolean => (flags(w) & NO_ROTATE) !== 0;
