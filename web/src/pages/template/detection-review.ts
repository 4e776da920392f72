// A detection review: what POST /templates (detectFields=true) or POST …/detect-fields answered, kept
// for the template version it produced until the person accepts the result. The detected fields are
// already real fields of that version; the review only shows where they came from (label, confidence),
// and the box editor turns drops and fixes into ordinary field edits. Kept in sessionStorage (per tab,
// like the key), so a reload of the page does not lose it.
import type { components } from '../../generated/schema.js';

export type Detection = components['schemas']['Detection'];

export interface Review {
  templateId: string;
  /** the version the detections were added in: a review of another version is stale */
  version: number;
  detections: Detection[];
  warnings: string[];
}

/** Below this confidence a detection is marked as one to check first. */
export const LOW_CONFIDENCE = 0.7;
export const isLow = (d: Detection) => d.confidence < LOW_CONFIDENCE;
export const percent = (d: Detection) => `${Math.round(d.confidence * 100)} %`;

const item = (templateId: string) => `formcast.review.${templateId}`;

export function storeReview(review: Review): void {
  sessionStorage.setItem(item(review.templateId), JSON.stringify(review));
}

/** The review of this template version, if one is open. */
export function loadReview(templateId: string, version: number): Review | null {
  const raw = sessionStorage.getItem(item(templateId));
  if (!raw) return null;
  try {
    const r = JSON.parse(raw) as Review;
    return r.version === version && Array.isArray(r.detections) ? r : null;
  } catch {
    return null;
  }
}

export function endReview(templateId: string): void {
  sessionStorage.removeItem(item(templateId));
}
