import { useEffect, useState } from 'preact/hooks';
import { api, type Page, type RenderListItem, type Template } from '../api.js';
import { ErrorText } from '../components/Alert.js';
import { Pager } from '../components/Pager.js';
import { formatBytes, formatDate } from '../format.js';

const LIMIT = 20;

export function RendersPage() {
  const [templateId, setTemplateId] = useState('');
  const [status, setStatus] = useState('');
  const [page, setPage] = useState(1);
  const [list, setList] = useState<Page<RenderListItem> | null>(null);
  const [templates, setTemplates] = useState<Template[]>([]);
  const [error, setError] = useState<unknown>(null);
  const [reload, setReload] = useState(0);

  useEffect(() => {
    api.get<Page<Template>>('/templates?limit=100').then((r) => setTemplates(r.data), setError);
  }, []);
  useEffect(() => {
    const q = new URLSearchParams({ page: String(page), limit: String(LIMIT) });
    if (templateId) q.set('templateId', templateId);
    if (status) q.set('status', status);
    api.get<Page<RenderListItem>>(`/renders?${q}`).then(setList, setError);
  }, [templateId, status, page, reload]);

  const remove = async (r: RenderListItem) => {
    if (!window.confirm(`Delete render ${r.id} and its file now?`)) return;
    try {
      await api.delete(`/renders/${r.id}`);
      setReload((n) => n + 1);
    } catch (err) {
      setError(err);
    }
  };

  return (
    <section>
      <h1>Renders</h1>
      <p class="lead">Every PDF made with your keys, newest first. Files are kept for your plan's retention period.</p>
      <form class="filters" onSubmit={(e) => e.preventDefault()}>
        <label>
          Template
          <select
            value={templateId}
            onChange={(e) => {
              setPage(1);
              setTemplateId((e.target as HTMLSelectElement).value);
            }}
          >
            <option value="">All templates</option>
            {templates.map((t) => (
              <option key={t.id} value={t.id}>
                {t.name}
              </option>
            ))}
          </select>
        </label>
        <label>
          Status
          <select
            value={status}
            onChange={(e) => {
              setPage(1);
              setStatus((e.target as HTMLSelectElement).value);
            }}
          >
            <option value="">Any status</option>
            <option value="completed">Completed</option>
            <option value="failed">Failed</option>
          </select>
        </label>
      </form>
      <ErrorText error={error} />
      {list && list.data.length === 0 && <p class="empty">No renders match.</p>}
      {list && list.data.length > 0 && (
        <div class="table-wrap">
          <table>
            <caption class="visually-hidden">Renders</caption>
            <thead>
              <tr>
                <th scope="col">Created</th>
                <th scope="col">Template</th>
                <th scope="col">Status</th>
                <th scope="col">Size</th>
                <th scope="col">Time</th>
                <th scope="col">Kept until</th>
                <th scope="col">File</th>
              </tr>
            </thead>
            <tbody>
              {list.data.map((r) => (
                <tr key={r.id} data-render={r.id}>
                  <td data-label="Created">{formatDate(r.createdAt)}</td>
                  <td data-label="Template">{r.templateName}</td>
                  <td data-label="Status">
                    <span class={`badge status-${r.status}`}>{r.status}</span>
                  </td>
                  <td data-label="Size">{formatBytes(r.fileSize)}</td>
                  <td data-label="Time">{r.durationMs} ms</td>
                  <td data-label="Kept until">{formatDate(r.expiresAt)}</td>
                  <td data-label="File" class="actions">
                    {r.downloadUrl ? (
                      <a class="button" href={r.downloadUrl} download aria-label={`Download render ${r.id}`}>
                        Download
                      </a>
                    ) : (
                      <span class="muted">—</span>
                    )}{' '}
                    <button type="button" class="danger" onClick={() => remove(r)} aria-label={`Delete render ${r.id}`}>
                      Delete
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {list && <Pager page={page} limit={LIMIT} total={list.meta.total} noun="render" onPage={setPage} />}
    </section>
  );
}
