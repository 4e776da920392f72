// The detection review's list, in the box editor's side panel: each detected field with the caption it
// was named from, its type and the detector's confidence (low ones marked and listed first), a button to
// select it on the page and one to drop it; "Accept all" keeps what is left and saves the fixes.
import type { Draft } from './BoxEditorDrafts.js';
import { typeLabel } from './BoxEditorToolbar.js';
import { type Detection, isLow, percent } from './detection-review.js';

interface Props {
  detections: Detection[];
  warnings: string[];
  drafts: Draft[];
  selected: string | null;
  pending: number;
  saving: boolean;
  disabled: boolean;
  onSelect: (id: string) => void;
  onDrop: (id: string) => void;
  onAcceptAll: () => void;
}

export function DetectionList(props: Props) {
  // low confidence first, then in reading order as detected
  const rows = props.detections
    .map((det, order) => ({ det, order, draft: props.drafts.find((d) => d.id === det.key) }))
    .sort((a, b) => Number(isLow(b.det)) - Number(isLow(a.det)) || a.order - b.order);
  const kept = rows.filter((r) => r.draft && !r.draft.deleted).length;
  const low = rows.filter((r) => isLow(r.det)).length;
  return (
    <section class="detect-review" aria-labelledby="detect-review-title">
      <h3 class="h3" id="detect-review-title">
        Review {rows.length} detected {rows.length === 1 ? 'field' : 'fields'}
      </h3>
      <p class="muted small">
        {kept} kept{low > 0 && `, ${low} with low confidence (marked ?) to check first`}. Drop wrong ones, fix a box on
        the page or its key and type below, draw what was missed with a tool.
      </p>
      {props.warnings.map((w) => (
        <p key={w} class="notice small">
          {w}
        </p>
      ))}
      <ul class="detect-list">
        {rows.map(({ det, draft }) => {
          const gone = !draft || draft.deleted;
          const renamed = !gone && draft.key !== det.key;
          return (
            <li
              key={det.key}
              data-detection={det.key}
              class={`detect-item${isLow(det) ? ' low' : ''}${gone ? ' dropped' : ''}${
                props.selected === det.key ? ' selected' : ''
              }`}
            >
              <button
                type="button"
                class="link detect-pick"
                disabled={gone}
                onClick={() => props.onSelect(det.key)}
                aria-label={`Select ${draft?.key ?? det.key} on the page`}
              >
                <code>{draft && !gone ? draft.key : det.key}</code>
                {renamed && <span class="muted small"> (was {det.key})</span>}
              </button>
              <span class="detect-meta small">
                {typeLabel(draft?.type ?? det.type)} · p. {det.page} ·{' '}
                <span class={isLow(det) ? 'confidence low' : 'confidence'}>
                  {isLow(det) && <span aria-hidden="true">? </span>}
                  {percent(det)}
                  {isLow(det) && <span class="visually-hidden"> (low confidence)</span>}
                </span>
              </span>
              <span class="detect-label small">{det.label ? `“${det.label}”` : 'no caption found'}</span>
              {gone ? (
                <span class="detect-dropped small">dropped</span>
              ) : (
                <button
                  type="button"
                  class="detect-drop"
                  disabled={props.disabled}
                  onClick={() => props.onDrop(det.key)}
                  aria-label={`Drop ${draft.key}`}
                >
                  Drop
                </button>
              )}
            </li>
          );
        })}
      </ul>
      <p>
        <button
          type="button"
          class="primary"
          data-testid="accept-all"
          disabled={props.disabled || props.saving}
          onClick={props.onAcceptAll}
        >
          {props.saving
            ? 'Saving…'
            : props.pending === 0
              ? 'Accept all'
              : `Accept the rest and save ${props.pending} ${props.pending === 1 ? 'change' : 'changes'}`}
        </button>
      </p>
    </section>
  );
}
