// What every output leaves out of the template, found at analysis (so the schema can say so) and
// applied once when a template is prepared. Each entry is a whole feature that filling would make
// wrong or unsafe in the output:
// - xfa: the XFA form of a hybrid form; XFA viewers would show its stale data instead of our values.
// - usage-rights: Adobe Reader usage rights (/Perms /UR3 or /UR). They are signed over the original
//   file; any change invalidates them and Reader then warns that the document was modified and
//   disables its extended features. Without them Reader treats the output as an ordinary form.
// - active content (active-content.ts): scripts, launching and submitting actions, embedded files,
//   and web links unless the operator keeps them.
import type { PDFDict } from '@cantoo/pdf-lib';
import { findActiveContent, type ActiveContentScope, type ActiveFeature } from './active-content.js';
import { N, getDict } from '../pdf-objects.js';

export type RemovedFeature = 'xfa' | 'usage-rights' | ActiveFeature;

export interface Removal {
  feature: RemovedFeature;
  /** one sentence for people reading the schema */
  description: string;
}

const DESCRIPTIONS: Record<RemovedFeature, string> = {
  xfa: 'The XFA form of this hybrid form is dropped: renders fill the AcroForm fields, which every viewer shows.',
  'usage-rights':
    'Adobe Reader usage rights (/Perms /UR3) are dropped: filling invalidates their signature, and Reader would warn that the document was modified.',
  javascript:
    'JavaScript (document, page, field and link scripts, including format and calculation scripts) is dropped: values are formatted when rendered.',
  'launch-actions': 'Actions that launch programs, open other files or play media are dropped.',
  'submit-actions': 'Form submission actions are dropped.',
  'embedded-files': 'Embedded files and file attachments are dropped.',
  'uri-links': 'Web links (URI actions) are dropped unless the operator allows them (OUTPUT_URI_LINKS=true).',
};

const ORDER: RemovedFeature[] = [
  'xfa',
  'usage-rights',
  'javascript',
  'launch-actions',
  'submit-actions',
  'embedded-files',
  'uri-links',
];

const USAGE_RIGHTS = ['UR3', 'UR'];

/** The features of this template that outputs leave out. */
export function findRemovals(scope: ActiveContentScope, acroForm: PDFDict | undefined): Removal[] {
  const found = new Set<RemovedFeature>(findActiveContent(scope));
  if (acroForm?.has(N('XFA'))) found.add('xfa');
  const perms = getDict(scope.catalog, 'Perms');
  if (perms && USAGE_RIGHTS.some((k) => perms.has(N(k)))) found.add('usage-rights');
  return ORDER.filter((f) => found.has(f)).map((feature) => ({ feature, description: DESCRIPTIONS[feature] }));
}

/** Removes usage rights (XFA goes with /NeedAppearances in xfa.ts). */
export function dropUsageRights(catalog: PDFDict): void {
  const perms = getDict(catalog, 'Perms');
  if (!perms) return;
  for (const k of USAGE_RIGHTS) perms.delete(N(k));
  if (perms.keys().length === 0) catalog.delete(N('Perms'));
}
