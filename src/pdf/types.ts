// The PDF engine's public types. The engine is pure: bytes and these plain objects in and out.
// Nothing here knows about HTTP, accounts or storage, and no pdf-lib type leaks past src/pdf/.
import type { Removal } from './sanitize/output-removals.js';

export type { Removal, RemovedFeature } from './sanitize/output-removals.js';

export type FieldType = 'text' | 'checkbox' | 'radio' | 'dropdown' | 'date' | 'number' | 'signature';

/** A field's display format, read from its /AA /F format action (Acrobat's AF* functions). */
export type FieldFormat =
  | { kind: 'date'; pattern: string } // AFDate_FormatEx("mm/dd/yyyy") or AFDate_Format(n) mapped to a pattern
  | { kind: 'time'; pattern: string } // AFTime_FormatEx("HH:MM") or AFTime_Format(n)
  | {
      kind: 'number';
      decimals: number;
      /** AFNumber sepStyle: 0 "1,234.56", 1 "1234.56", 2 "1.234,56", 3 "1234,56", 4 "1'234.56" */
      sepStyle: number;
      /** AFNumber negStyle: 0 minus, 1 red, 2 parens, 3 red parens (1 and 3 colour the value: TextColor) */
      negStyle: number;
      currency: string;
      currencyPrepend: boolean;
    }
  | { kind: 'percent'; decimals: number; sepStyle: number }
  | { kind: 'special'; psf: number } // AFSpecial_Format(0..3): zip, zip+4, phone, SSN
  | { kind: 'specialEx'; mask: string }; // AFSpecial_KeystrokeEx / FormatEx mask

export type LabelSource = 'tooltip' | 'page' | 'none';

// ---- the form's own scripts, as the analyser reads them (analysis/field-scripts.ts) ----

/**
 * What a field's calculate action (/AA /C) does: AFSimple_Calculate's SUM, PRD, AVG, MIN, MAX
 * (sum ... maximum), Acrobat's simplified field notation, or any other script (custom).
 */
export type CalculationKind = 'sum' | 'product' | 'average' | 'minimum' | 'maximum' | 'simplified' | 'custom';

/** What a format, keystroke or validate action is: one of Acrobat's AF* built-ins, or any other script. */
export type ScriptKind = 'AFNumber' | 'AFPercent' | 'AFDate' | 'AFTime' | 'AFSpecial' | 'AFRange_Validate' | 'custom';

export type ScriptAction = 'calculate' | 'format' | 'keystroke' | 'validate';

/** A script using an API the render-time sandbox does not offer (e.g. app.response, xfa, SOAP). */
export interface UnsupportedScript {
  action: ScriptAction;
  /** the API, as the script names it (e.g. "app.alert", "SOAP") */
  api: string;
  reason: string;
}

/** A document-level script (/Names /JavaScript): the functions it defines for the fields' scripts. */
export interface DocumentScript {
  name: string;
  /** functions it declares (first 100), e.g. ["calcTotal"] */
  functions: string[];
  unsupported?: Omit<UnsupportedScript, 'action'>[];
}

/** The form's scripts as a whole; absent in analyses stored before scripts were read. */
export interface AnalysedScripts {
  /** fully qualified names of the fields /AcroForm /CO lists, in that order (the calculation order) */
  calculationOrder: string[];
  document: DocumentScript[];
}

/** [x1, y1, x2, y2] in PDF user space (points, origin at the page's bottom left), x1 <= x2, y1 <= y2. */
export type Rect = [number, number, number, number];

export interface WidgetPlacement {
  /** 1-based page */
  page: number;
  rect: Rect;
}

/** One fillable field as the analyser found it. */
export interface AnalysedField {
  /** Key for render `data`: short, readable, unique within the template, stable for the same file. */
  name: string;
  type: FieldType;
  required: boolean;
  /** Text fields with /MaxLen only. */
  maxLength?: number;
  /**
   * dropdown: export values of /Opt (first element of [export display] pairs), in order.
   * radio: the values a caller sends (the /Opt strings when the buttons have /Opt, else the on-state names).
   * checkbox: not set.
   */
  options?: string[];
  /**
   * The field's tooltip (/TU), null when it has none. Always set by analyse(); absent only in analyses
   * stored before it existed (the template view backfills them: docs/decisions.md).
   */
  label?: string | null;
  /**
   * Where `label` came from: the tooltip, the caption printed beside the widget, or nowhere.
   * Set by analyse(); absent in analyses stored before it (completed on read like `label`).
   */
  labelSource?: LabelSource;
  /**
   * A readable key made from `label` (else the PDF name): lower snake_case ASCII, unique in the template.
   * PATCH /templates/:id/fields `useSuggestedNames` adopts it as the render key.
   */
  suggestedName?: string;
  /**
   * What a person reads for each option, parallel to `options` (for a multi-state check box, to its
   * states): the display text of dropdown /Opt pairs, the words beside each radio button; the option
   * itself when there is nothing else.
   */
  optionLabels?: string[];
  pdfMeta: {
    /** Fully qualified PDF name (partial names joined by "."). Render `data` accepts it as a key too. */
    originalName: string;
    /** 1-based page of the first widget. */
    page: number;
    /** Present and true only for read-only fields; they are not filled. */
    readOnly?: boolean;
    /** The first widget's /Rect on `page`, normalised; always set by analyse() (see `label`). */
    rect?: Rect;
    /** Every widget placed on a page, in order: only when there are several. */
    widgets?: WidgetPlacement[];
    /** Present and true only for combo boxes with the Edit flag: any text is accepted. */
    editable?: true;
  };
  /**
   * Present and true only when the form computes the field's value (a JavaScript calculate action,
   * /AA /C): at render time the form's script writes it, not the caller.
   */
  computed?: true;
  /** computed fields: the kind of calculation and the fields it reads (their PDF names), when readable statically */
  calculation?: { kind: CalculationKind; reads?: string[] };
  /** the kinds of the field's format (/AA /F), keystroke (/AA /K) and validate (/AA /V) scripts, when it has them */
  scripts?: { format?: ScriptKind; keystroke?: ScriptKind; validate?: ScriptKind };
  /** scripts of the field that use APIs the render-time sandbox does not offer, and why */
  unsupportedScripts?: UnsupportedScript[];
  /** Engine-internal details, not part of the public schema. */
  detail: FieldDetail;
}

export interface FieldDetail {
  /** PDF field type: Tx, Btn, Ch, Sig. */
  ft: 'Tx' | 'Btn' | 'Ch' | 'Sig';
  /** list box (Ch without the Combo flag) */
  listBox?: boolean;
  /** combo box with the Edit flag: any string is accepted */
  editable?: boolean;
  multiSelect?: boolean;
  multiline?: boolean;
  comb?: boolean;
  password?: boolean;
  /** dropdown display strings parallel to options, when /Opt has [export display] pairs */
  optionLabels?: string[];
  /** checkbox: the on-state name(s) of its widgets (e.g. ["Yes"], ["1"]) */
  onStates?: string[];
  /**
   * radio: for each entry of `options`, the appearance on-state name that selects it
   * (e.g. options ["Carrot","Potato"] with /Opt -> onStates ["0","1"]).
   */
  optionStates?: string[];
  format?: FieldFormat;
  /** number of widget annotations */
  widgetCount: number;
  /** the field is reachable from /AcroForm /Fields (false: recovered from a page's /Annots) */
  inAcroFormFields: boolean;
}

export interface TemplateAnalysis {
  fields: AnalysedField[];
  pageCount: number;
  encrypted: boolean;
  hasXfa: boolean;
  /** features of the template that outputs leave out, and why (absent in analyses stored before it existed) */
  removedFromOutput?: Removal[];
  /** the calculation order and document-level scripts (absent in analyses stored before they were read) */
  scripts?: AnalysedScripts;
}

/**
 * A colour the field's display format gives its value, over its /DA colour: Acrobat's AFNumber_Format
 * with negStyle 1 or 3 sets the text colour to red for a negative number and black for any other.
 */
export type TextColor = 'red' | 'black';

/**
 * A value ready to be written into one field, produced by validation + formatting.
 * The engine does no type checking or formatting of its own beyond drawing.
 */
export type FillValue =
  | { kind: 'text'; text: string; color?: TextColor } // text, date, number (already formatted), signature as text
  | { kind: 'check'; checked: boolean } // checkbox
  | { kind: 'choice'; value: string } // radio (one of options) / dropdown (export value or free text if editable)
  | { kind: 'choices'; values: string[] } // multi-select list box
  | { kind: 'image'; bytes: Uint8Array; format: 'png' | 'jpeg' } // signature image
  | { kind: 'clear' }; // null: leave the field empty

export interface FillRequest {
  /** keyed by AnalysedField.pdfMeta.originalName */
  values: Record<string, FillValue>;
  flatten: boolean;
  /** text drawn diagonally on every page when set */
  watermark?: string;
  /** keep plain /URI web links (default: stripped with every other active content; active-content.ts) */
  keepUriLinks?: boolean;
  /** run the form's calculate, format, keystroke and validate scripts (default true; false skips every script) */
  calculate?: boolean;
}

/** A problem one of the form's scripts met at render time (also in the fill's `warnings`). */
export interface ScriptWarning {
  field: string;
  code: string;
  message: string;
}

/** A value a validate or keystroke script refused (`event.rc = false`), with the script's message if any. */
export interface ScriptRejection {
  /** the field's fully qualified PDF name */
  field: string;
  value: string;
  message?: string;
}

/** What the form's scripts reported in one render, as the engine builds it (empty: none ran, or all ran). */
export interface ScriptReport {
  scriptWarnings: ScriptWarning[];
  scriptRejections: ScriptRejection[];
}

export interface FillResult {
  bytes: Uint8Array;
  /** non-fatal problems, e.g. a widget that could not be drawn */
  warnings: string[];
  /**
   * The same file as consecutive chunks (base + update), when the engine has it in that form: write
   * these in order rather than reading `bytes`, which then joins them into a new buffer.
   */
  chunks?: readonly Uint8Array[];
  /** problems of the form's scripts, each already in `warnings` (absent: no script ran) */
  scriptWarnings?: ScriptWarning[];
  /** values the form's validate or keystroke scripts refused (absent: none, or no script ran) */
  scriptRejections?: ScriptRejection[];
}

/**
 * A render as it is produced: the prefix of its template version's compact layout (the objects every
 * output carries unchanged, writer/compact-layout.ts) followed by the rest of one whole file (the objects
 * this render reaches outside the prefix and a cross-reference stream). Written one after the other
 * they are the output PDF; kept apart, the prefix (the same for every render of a template version)
 * need not be copied per render.
 */
export interface RenderParts {
  /** the layout's prefix, shared by every render of the template version: never modify it */
  base: Uint8Array;
  /** names the base's exact bytes (a hash of them): a process that holds it need not receive it again */
  baseId: string;
  /** the rest of the file: the render's objects outside the prefix and the cross-reference stream */
  update: Uint8Array;
  warnings: string[];
  scriptWarnings?: ScriptWarning[];
  scriptRejections?: ScriptRejection[];
}

/** Thrown by the engine for input it cannot work with. The HTTP layer maps `code`. */
export class PdfEngineError extends Error {
  constructor(
    readonly code: 'INVALID_PDF' | 'RENDER_FAILED' | 'PDF_LIMIT',
    message: string,
  ) {
    super(message);
    this.name = 'PdfEngineError';
  }
}

// ---- the field editor (edit/): edits to a template's AcroForm, applied in order by editFields() ----

/** What a new field is; `multiline`, `number`, `date` and `comb` are text fields with a flag or a format. */
export type NewFieldType =
  | 'text'
  | 'multiline'
  | 'number'
  | 'date'
  | 'checkbox'
  | 'radio'
  | 'dropdown'
  | 'signature'
  | 'comb';

export type FieldAlignment = 'left' | 'center' | 'right';

/** A field to add. Rects are PDF user space of their page, as `pdfMeta.rect` in the analysis. */
export interface NewField {
  /** The PDF partial name (/T): the field becomes a top-level field of that fully qualified name. No '.'. */
  name: string;
  type: NewFieldType;
  /** 1-based page of the widget; every type but radio */
  page?: number;
  /** [x1, y1, x2, y2] with x1 < x2, y1 < y2, inside the page's visible box; every type but radio */
  rect?: Rect;
  /** radio only: one widget per option, in option order (the page of each may differ) */
  widgets?: WidgetPlacement[];
  /** text-like fields and dropdowns: 0 (the default) sizes the text to fit */
  fontSize?: number;
  /** text-like fields and dropdowns (default left) */
  alignment?: FieldAlignment;
  /** text, multiline, number, date: /MaxLen */
  maxLength?: number;
  /** comb: the number of character cells (/MaxLen) */
  cells?: number;
  /** dropdown and radio: the export values, in order; radio: as many as `widgets` */
  options?: string[];
  required?: boolean;
  readOnly?: boolean;
  /** date: the display pattern, e.g. "dd/mm/yyyy" (an AFDate_FormatEx action); default "mm/dd/yyyy" */
  dateFormat?: string;
  /** number: decimals shown (an AFNumber_Format action); default 2 */
  decimals?: number;
}

/**
 * Changes to an existing field, with NewField's meaning; only what is given changes. `page`/`rect` move a
 * field with one widget; `widgets` gives every widget's place, in the order of `pdfMeta.widgets`; `options`
 * for a radio group renames its export values, one per existing widget.
 */
export type FieldChanges = Pick<
  NewField,
  'page' | 'rect' | 'widgets' | 'fontSize' | 'alignment' | 'maxLength' | 'options' | 'required'
> & {
  /** makes a text field a comb of this many cells */
  cells?: number;
};

/** `name` is the field's fully qualified PDF name (`pdfMeta.originalName` in the analysis). */
export type FieldEdit =
  | { op: 'add'; field: NewField }
  | { op: 'update'; name: string; changes: FieldChanges }
  | { op: 'delete'; name: string };

/** One reason the edits were refused, naming the field it is about. */
export interface FieldEditProblem {
  field: string;
  message: string;
}

/**
 * Thrown by editFields() when any edit cannot be applied: every problem of the request at once, each
 * naming its field; nothing was changed. The HTTP layer maps it to VALIDATION_ERROR.
 */
export class FieldEditError extends Error {
  constructor(readonly problems: FieldEditProblem[]) {
    super(
      `the field edits were refused: ${problems
        .slice(0, 3)
        .map((p) => `${p.field}: ${p.message}`)
        .join('; ')}${problems.length > 3 ? ` (and ${problems.length - 3} more)` : ''}`,
    );
    this.name = 'FieldEditError';
  }
}
