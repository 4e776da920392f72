import { useEffect, useState } from 'preact/hooks';
import { ApiError, api, type Page, type Template } from '../api.js';
import { ErrorText } from '../components/Alert.js';
import { DropZone } from '../components/DropZone.js';
import { Pager } from '../components/Pager.js';
import { TemplateActions } from '../components/TemplateActions.js';
import { formatBytes, formatDate } from '../format.js';
import { BASE, linkClick, navigate } from '../router.js';
import { type Detection, storeReview } from './template/detection-review.js';

const LIMIT = 20;

export function TemplatesPage() {
  const [page, setPage] = useState(1);
  const [list, setList] = useState<Page<Template> | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [uploadError, setUploadError] = useState<unknown>(null);
  const [uploading, setUploading] = useState(false);
  // a PDF refused as "not a form": offered to detection
  const [flat, setFlat] = useState<File | null>(null);
  const [reload, setReload] = useState(0);

  useEffect(() => {
    api.get<Page<Template>>(`/templates?page=${page}&limit=${LIMIT}`).then(setList, setError);
  }, [page, reload]);

  const upload = async (file: File, detect = false) => {
    setUploading(true);
    setUploadError(null);
    setFlat(null);
    try {
      const form = new FormData();
      if (detect) form.append('detectFields', 'true');
      form.append('file', file, file.name);
      const res = await api.send<{
        data: Template & { detections?: Detection[]; detectionWarnings?: string[] };
      }>('POST', '/templates', form);
      const t = res.data;
      // detected fields open in the editor for review
      if (t.detections && t.detections.length > 0)
        storeReview({
          templateId: t.id,
          version: t.version,
          detections: t.detections,
          warnings: t.detectionWarnings ?? [],
        });
      navigate(`${BASE}/templates/${encodeURIComponent(t.id)}`);
    } catch (err) {
      if (!detect && err instanceof ApiError && err.code === 'INVALID_PDF') setFlat(file);
      else setUploadError(err);
    } finally {
      setUploading(false);
    }
  };
  const replaceItem = (t: Template) =>
    setList((l) => l && { ...l, data: l.data.map((x) => (x.id === t.id ? { ...x, ...t } : x)) });

  return (
    <section>
      <h1>Templates</h1>
      <p class="lead">
        Upload a PDF form: its fields are found at once. Open a template to see them on the page and try values.
      </p>
      <DropZone id="upload" busy={uploading} onFile={(f) => void upload(f)} />
      {flat && (
        <div class="notice detect-offer" role="alert">
          <p>
            <strong>{flat.name}</strong> has no form fields to fill. Its fields can be detected from the boxes, lines
            and check boxes drawn on its pages, then reviewed on the page before use.
          </p>
          <p class="actions">
            <button type="button" class="primary" disabled={uploading} onClick={() => void upload(flat, true)}>
              {uploading ? 'Detecting fields…' : 'Detect fields'}
            </button>
            <button type="button" disabled={uploading} onClick={() => setFlat(null)}>
              Cancel
            </button>
          </p>
        </div>
      )}
      <ErrorText error={uploadError} />
      <ErrorText error={error} />
      {list && list.data.length === 0 && <p class="empty">No templates yet: upload your first form above.</p>}
      {list && list.data.length > 0 && (
        <div class="table-wrap">
          <table>
            <caption class="visually-hidden">Your templates</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Fields</th>
                <th scope="col">Version</th>
                <th scope="col">Size</th>
                <th scope="col">Updated</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {list.data.map((t) => (
                <tr key={t.id} data-template={t.id}>
                  <td data-label="Name">
                    <div>
                      <a href={`${BASE}/templates/${encodeURIComponent(t.id)}`} onClick={linkClick}>
                        {t.name}
                      </a>
                      {t.isFrozen && <span class="badge frozen">frozen</span>}
                      <div class="muted small">{t.fileName}</div>
                    </div>
                  </td>
                  <td data-label="Fields">{t.fieldCount}</td>
                  <td data-label="Version">v{t.version}</td>
                  <td data-label="Size">{formatBytes(t.fileSize)}</td>
                  <td data-label="Updated">{formatDate(t.updatedAt)}</td>
                  <td data-label="Actions">
                    <TemplateActions template={t} onChanged={replaceItem} onDeleted={() => setReload((n) => n + 1)} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {list && <Pager page={page} limit={LIMIT} total={list.meta.total} noun="template" onPage={setPage} />}
    </section>
  );
}
