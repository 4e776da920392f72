import { useEffect, useState } from 'preact/hooks';
import { api, type Page, type Template } from '../api.js';
import { ErrorText } from '../components/Alert.js';
import { DropZone } from '../components/DropZone.js';
import { Pager } from '../components/Pager.js';
import { TemplateActions } from '../components/TemplateActions.js';
import { formatBytes, formatDate } from '../format.js';
import { BASE, linkClick, navigate } from '../router.js';

const LIMIT = 20;

export function TemplatesPage() {
  const [page, setPage] = useState(1);
  const [list, setList] = useState<Page<Template> | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [uploadError, setUploadError] = useState<unknown>(null);
  const [uploading, setUploading] = useState(false);
  const [reload, setReload] = useState(0);

  useEffect(() => {
    api.get<Page<Template>>(`/templates?page=${page}&limit=${LIMIT}`).then(setList, setError);
  }, [page, reload]);

  const upload = async (file: File) => {
    setUploading(true);
    setUploadError(null);
    try {
      const form = new FormData();
      form.append('file', file, file.name);
      const res = await api.send<{ data: Template }>('POST', '/templates', form);
      navigate(`${BASE}/templates/${encodeURIComponent(res.data.id)}`);
    } catch (err) {
      setUploadError(err);
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
      <DropZone id="upload" busy={uploading} onFile={upload} />
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
