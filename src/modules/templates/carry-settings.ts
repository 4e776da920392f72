// A file replacement keeps the team's model: each new field paired with an old one (map-fields.ts) takes
// its key, description, default and rules; the report says what was kept, renamed in the PDF, added and
// removed, and which settings no longer fit the new field (dropped, never half-applied). Pure.
import type { AnalysedField } from '../../pdf/types.js';
import { effectiveFields, settingProblems, type FieldSetting, type FieldSettings } from './field-settings.js';
import { matchFields, type MatchedBy } from './map-fields.js';

export interface MappedField {
  /** the render key in the new version */
  key: string;
  originalName: string;
}

export interface FieldMappingReport {
  /** same PDF name */
  kept: MappedField[];
  /**
   * paired under another PDF name: `from` is the old PDF name, `by` the sign that paired them,
   * `confidence` (0..1) how strongly that sign says "the same field"
   */
  renamedInPdf: (MappedField & { from: string; by: Exclude<MatchedBy, 'pdf-name'>; confidence: number })[];
  /** new fields, with the analyser's key (or their PDF name when a kept key took it) */
  added: MappedField[];
  /** old fields with no counterpart: `key` is the key they had */
  removed: MappedField[];
  /** settings of paired fields that the new field cannot take (a default no longer among the options...) */
  dropped: { key: string; originalName: string; setting: string; reason: string }[];
}

/** Names the setting properties settingProblems reports under `<path>.<property>`. */
const PROPERTY = /\.(name|description|required|default|constant|hidden)$/;

export function carrySettings(
  oldFields: AnalysedField[],
  oldSettings: FieldSettings,
  newFields: AnalysedField[],
): { settings: FieldSettings; report: FieldMappingReport } {
  const match = matchFields(oldFields, newFields);
  const oldEffective = effectiveFields(oldFields, oldSettings);
  const oldKeyByName = new Map(oldFields.map((f, i) => [f.pdfMeta.originalName, oldEffective[i].name]));

  const settings: FieldSettings = Object.create(null);
  const carried = new Set<string>();
  for (const { old, next } of match.pairs) {
    const s: FieldSetting = { ...oldSettings[old.pdfMeta.originalName] };
    const key = oldKeyByName.get(old.pdfMeta.originalName)!;
    if (key === next.name) delete s.name;
    else s.name = key;
    if (Object.keys(s).length > 0) settings[next.pdfMeta.originalName] = s;
    carried.add(next.pdfMeta.originalName);
  }

  // A kept key wins over a new field's analyser key: the new field takes its PDF name (always unique).
  const taken = new Set(
    effectiveFields(newFields, settings)
      .filter((f) => carried.has(f.pdfMeta.originalName))
      .map((f) => f.name),
  );
  for (const f of newFields) {
    if (!carried.has(f.pdfMeta.originalName) && taken.has(f.name))
      settings[f.pdfMeta.originalName] = { name: f.pdfMeta.originalName };
  }

  // What no longer fits is dropped, property by property, until the whole holds. Dropping a key brings back
  // the analyser's, which may collide with another carried key: each round drops at least one property, so
  // the loop ends; a key still in conflict after that (nothing left to drop) becomes the PDF name, unique.
  const dropped: FieldMappingReport['dropped'] = [];
  for (;;) {
    const problems = settingProblems(newFields, settings, (o) => o);
    if (problems.length === 0) break;
    let progress = false;
    for (const p of problems) {
      const prop = PROPERTY.exec(p.field)?.[1] as keyof FieldSetting | undefined;
      const s = settings[p.original];
      if (!prop || !s || s[prop] === undefined) continue;
      dropped.push({ key: s.name ?? p.original, originalName: p.original, setting: prop, reason: p.message });
      delete s[prop];
      if (Object.keys(s).length === 0) delete settings[p.original];
      progress = true;
    }
    if (!progress) {
      for (const p of problems) settings[p.original] = { ...settings[p.original], name: p.original };
      break;
    }
  }

  const newEffective = effectiveFields(newFields, settings);
  const newKey = new Map(newFields.map((f, i) => [f.pdfMeta.originalName, newEffective[i].name]));
  const mapped = (f: AnalysedField): MappedField => ({
    key: newKey.get(f.pdfMeta.originalName)!,
    originalName: f.pdfMeta.originalName,
  });
  const report: FieldMappingReport = {
    kept: match.pairs.filter((p) => p.by === 'pdf-name').map((p) => mapped(p.next)),
    renamedInPdf: match.pairs.flatMap((p) =>
      p.by === 'pdf-name'
        ? []
        : [{ ...mapped(p.next), from: p.old.pdfMeta.originalName, by: p.by, confidence: p.confidence }],
    ),
    added: match.added.map(mapped),
    removed: match.removed.map((f) => ({
      key: oldKeyByName.get(f.pdfMeta.originalName)!,
      originalName: f.pdfMeta.originalName,
    })),
    dropped,
  };
  return { settings, report };
}
