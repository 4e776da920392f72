// "Edit on page": draw new fields on the page image, move and resize existing ones, change their
// properties; every change stays local (undoable, drawn as pending) until one POST …/field-edits saves
// them all as the template's next version. A refusal keeps every pending change and shows each problem
// by the field it names.
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { ApiError, api, type SchemaField, type Template, type TemplateSchema } from '../../api.js';
import { errorMessage } from '../../components/Alert.js';
import { PdfPages } from '../../components/PdfPages.js';
import type { Box, PDFDocumentProxy } from '../../pdf.js';
import { EditLayer, type EditGesture } from './BoxEditorLayer.js';
import { EditToolbar } from './BoxEditorToolbar.js';
import {
  type Draft,
  draftsOf,
  editName,
  editsOf,
  freeKey,
  newDraft,
  type Tool,
  withType,
  withWidgetBox,
} from './BoxEditorDrafts.js';
import { DetectionList } from './DetectionList.js';
import type { Detection, Review } from './detection-review.js';
import { EditPanel, type EditErrors } from './EditPanel.js';

interface Props {
  template: Template;
  doc: PDFDocumentProxy;
  fields: SchemaField[];
  boxes: Box[];
  /** the new version was stored: the page reloads its file and schema */
  onSaved: (schema: TemplateSchema) => void;
  /** detected fields to review (they are fields of this version already) */
  review: Review | null;
  /** the person accepted the detections (as they were, or with the fixes just saved) */
  onReviewEnd: () => void;
}

/** The most undo steps kept: far more than a session of edits needs. */
const MAX_UNDO = 200;

export function BoxEditor(props: Props) {
  const { template } = props;
  const base = useMemo(() => draftsOf(props.fields, props.boxes), [props.fields, props.boxes]);
  const [drafts, setDrafts] = useState<Draft[]>(base);
  const [history, setHistory] = useState<Draft[][]>([]);
  const [selected, setSelected] = useState<string | null>(null);
  const [tool, setTool] = useState<Tool>('select');
  const [cells, setCells] = useState(5);
  const [errors, setErrors] = useState<EditErrors | null>(null);
  const [saving, setSaving] = useState(false);
  const [saved, setSaved] = useState<number | null>(null);
  const nextId = useRef(1);

  // a new version (saved here, or a file replaced): start again from what the template now holds,
  // keeping the selection on a field that is still there under its key
  useEffect(() => {
    setDrafts(base);
    setHistory([]);
    setSelected((id) => (id && base.some((d) => d.id === id) ? id : null));
  }, [base]);

  const frozen = template.isFrozen
    ? 'This template is frozen: its fields cannot be edited. Unfreeze it to edit them.'
    : null;
  const edits = useMemo(() => editsOf(base, drafts), [base, drafts]);
  // the detections by the id of the draft holding them (an existing field's id is its key)
  const detections = useMemo(
    () =>
      new Map<string, Detection>(
        (props.review?.detections ?? []).filter((d) => base.some((b) => b.id === d.key)).map((d) => [d.key, d]),
      ),
    [props.review, base],
  );

  const commit = (next: Draft[], changedKeys: string[] = []) => {
    setHistory((h) => [...h.slice(-MAX_UNDO + 1), drafts]);
    setDrafts(next);
    setSaved(null);
    // a field's own problems go once it is changed again; the others stay until the next save
    if (errors && changedKeys.length > 0) {
      const byField = new Map(errors.byField);
      for (const k of changedKeys) byField.delete(k);
      setErrors({ ...errors, byField });
    }
  };
  const change = (id: string, fn: (d: Draft) => Draft) => {
    const was = drafts.find((d) => d.id === id);
    if (!was) return;
    const now = fn(was);
    commit(
      drafts.map((d) => (d.id === id ? now : d)),
      [was.key, now.key],
    );
  };
  const undo = () => {
    const last = history.at(-1);
    if (!last) return;
    setHistory(history.slice(0, -1));
    setDrafts(last);
    if (selected && !last.some((d) => d.id === selected && !d.deleted)) setSelected(null);
  };
  const remove = (id: string) => {
    const d = drafts.find((x) => x.id === id);
    if (!d) return;
    // a drawn field just goes; an existing one is marked and deleted on save
    commit(
      d.existing ? drafts.map((x) => (x.id === id ? { ...x, deleted: true } : x)) : drafts.filter((x) => x.id !== id),
      [d.key],
    );
    setSelected(null);
  };

  const onGesture = (g: EditGesture) => {
    if (g.kind === 'draw') {
      if (tool === 'select') return;
      const taken = new Set([...drafts.map((d) => d.key), ...props.fields.map((f) => f.pdfMeta.originalName)]);
      const id = `new:${nextId.current++}`;
      commit([...drafts, newDraft(id, tool, g.page, g.rect, freeKey(tool, taken), cells)]);
      setSelected(id);
      setTool('select'); // one field per drawing: the next press selects or moves it
      return;
    }
    change(g.id, (d) => withWidgetBox(d, g.widget, g.rect, g.kind === 'resize'));
  };

  const save = async () => {
    if (edits.length === 0 || saving) return;
    setSaving(true);
    setErrors(null);
    try {
      const res = await api.send<{ data: TemplateSchema }>(
        'POST',
        `/templates/${encodeURIComponent(template.id)}/field-edits`,
        { edits },
      );
      setSaved(res.data.version);
      // the saved version holds the reviewed fields: the review is over
      if (props.review) props.onReviewEnd();
      props.onSaved(res.data);
    } catch (err) {
      setErrors(errorsOf(err, new Set(edits.map(editName))));
    } finally {
      setSaving(false);
    }
  };

  const acceptAll = () => {
    if (edits.length > 0) void save();
    else props.onReviewEnd();
  };
  const pick = (id: string) => {
    setSelected(id);
    const key = drafts.find((d) => d.id === id)?.key ?? id;
    document.querySelector<HTMLElement>(`.edit-box[data-key="${CSS.escape(key)}"]`)?.scrollIntoView({
      block: 'center',
    });
  };

  const current = drafts.find((d) => d.id === selected && !d.deleted) ?? null;
  const errorKeys = new Set(errors?.byField.keys() ?? []);
  return (
    <div class="box-editor">
      <EditToolbar
        tool={tool}
        onTool={setTool}
        cells={cells}
        onCells={setCells}
        pending={edits.length}
        canUndo={history.length > 0}
        onUndo={undo}
        onDiscard={() => commit(base)}
        onSave={save}
        saving={saving}
        disabled={frozen}
      />
      <div class="box-editor-body">
        <div class="box-editor-pages">
          <PdfPages
            doc={props.doc}
            boxes={[]}
            active={null}
            label="Template pages: draw, move and resize fields"
            overlay={(page, viewport) => (
              <EditLayer
                page={page}
                frame={{ view: viewport.viewBox, rotate: viewport.rotation }}
                drafts={drafts}
                base={base}
                selected={current?.id ?? null}
                errorKeys={errorKeys}
                tool={tool}
                disabled={frozen !== null}
                onSelect={setSelected}
                onGesture={onGesture}
                onDelete={remove}
                detections={detections}
              />
            )}
          />
        </div>
        <EditPanel
          draft={current}
          drafts={drafts}
          base={base}
          edits={edits}
          errors={errors}
          // "saved as version n" while n is the version shown (not after another change of the template)
          saved={saved === template.version ? saved : null}
          disabled={frozen}
          onSelect={setSelected}
          onChange={(fn) => current && change(current.id, fn)}
          onRetype={(type) => current && change(current.id, (d) => withType(d, type, cells))}
          onDelete={() => current && remove(current.id)}
          detection={(current && detections.get(current.id)) ?? null}
          review={
            props.review && (
              <DetectionList
                detections={props.review.detections}
                warnings={props.review.warnings}
                drafts={drafts}
                selected={current?.id ?? null}
                pending={edits.length}
                saving={saving}
                disabled={frozen !== null}
                onSelect={pick}
                onDrop={remove}
                onAcceptAll={acceptAll}
              />
            )
          }
        />
      </div>
    </div>
  );
}

/** A refusal's problems by the field each names; the rest (a conflict, a network error) said once. */
function errorsOf(err: unknown, sent: ReadonlySet<string>): EditErrors {
  const byField = new Map<string, string[]>();
  const general: string[] = [];
  const list = err instanceof ApiError ? err.details?.errors : undefined;
  if (Array.isArray(list)) {
    for (const e of list as { field?: unknown; message?: unknown }[]) {
      const field = typeof e.field === 'string' ? e.field : '';
      const message = typeof e.message === 'string' ? e.message : 'refused';
      if (sent.has(field)) byField.set(field, [...(byField.get(field) ?? []), message]);
      else general.push(field ? `${field}: ${message}` : message);
    }
  }
  if (byField.size === 0 && general.length === 0) general.push(errorMessage(err));
  return { byField, general };
}
