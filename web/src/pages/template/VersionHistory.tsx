import type { ComponentChildren } from 'preact';
import { useEffect, useMemo, useState } from 'preact/hooks';
import { api, type Page, type SchemaField } from '../../api.js';
import { ErrorText } from '../../components/Alert.js';
import { Pager } from '../../components/Pager.js';
import { formatDate, plural } from '../../format.js';
import type { components } from '../../generated/schema.js';

type TemplateVersion = components['schemas']['TemplateVersion'];
type FieldMapping = components['schemas']['FieldMapping'];

const LIMIT = 10;
/** Lists this long or shorter start open: a handful of names is read at a glance, hundreds are not. */
const OPEN_UP_TO = 12;

const CHANGE: Record<TemplateVersion['change'], string> = {
  file: 'New file (replaced, or fields edited on the page)',
  fields: 'Field settings edited',
  earlier: 'As the template was before its first recorded change',
};

/** The template's versions, newest first, each with what changed; a file change with its mapping report. */
export function VersionHistory(props: { templateId: string; version: number; fields: SchemaField[] }) {
  const [page, setPage] = useState(1);
  const [list, setList] = useState<Page<TemplateVersion> | null>(null);
  const [error, setError] = useState<unknown>(null);
  const keyOf = useMemo(() => new Map(props.fields.map((f) => [f.pdfMeta.originalName, f.name])), [props.fields]);

  useEffect(() => {
    const ctrl = new AbortController();
    setError(null);
    api
      .get<Page<TemplateVersion>>(
        `/templates/${encodeURIComponent(props.templateId)}/versions?page=${page}&limit=${LIMIT}`,
        { signal: ctrl.signal },
      )
      .then(setList, (err: Error) => err.name !== 'AbortError' && setError(err));
    return () => ctrl.abort();
  }, [props.templateId, props.version, page]);

  if (error) return <ErrorText error={error} />;
  if (!list) return <p role="status">Loading the history…</p>;
  return (
    <section class="version-history" aria-labelledby="history-title">
      <h2 class="h3" id="history-title">
        History
      </h2>
      {list.meta.total === 0 ? (
        <p class="empty">
          No change recorded yet: the history starts with the first new file or field edit (now version {props.version}
          ).
        </p>
      ) : (
        <ol class="versions">
          {list.data.map((v) => (
            <VersionItem key={v.version} v={v} current={v.version === props.version} keyOf={keyOf} />
          ))}
        </ol>
      )}
      <Pager
        page={page}
        limit={LIMIT}
        total={list.meta.total}
        onPage={setPage}
        noun="version"
        label="History pages"
        previous="Newer"
        next="Older"
      />
    </section>
  );
}

function VersionItem(props: { v: TemplateVersion; current: boolean; keyOf: Map<string, string> }) {
  const { v } = props;
  const report = v.report;
  return (
    <li class="version" data-version={v.version} data-change={v.change}>
      <div class="version-head">
        <strong>Version {v.version}</strong>
        {props.current && <span class="badge">current</span>}
        <span class={`badge change-${v.change}`}>{v.change === 'earlier' ? 'earlier' : v.change}</span>
        <time class="muted small" dateTime={v.createdAt}>
          {formatDate(v.createdAt)}
        </time>
      </div>
      <p class="small">
        {CHANGE[v.change]} · {plural(v.keys, 'field')}
      </p>
      {report && 'kept' in report && <MappingReport report={report} />}
      {report && 'changed' in report && (
        <Group title={`${plural(report.changed.length, 'field')} changed`} count={report.changed.length}>
          {report.changed.map((o) => (
            <li key={o}>
              <code>{props.keyOf.get(o) ?? o}</code>
              {props.keyOf.get(o) !== o && <span class="muted small"> PDF {o}</span>}
            </li>
          ))}
        </Group>
      )}
    </li>
  );
}

/** kept / renamed in the PDF / new / removed / dropped settings, each a list that folds. */
function MappingReport({ report }: { report: FieldMapping }) {
  const parts = [
    `${report.kept.length} kept`,
    `${report.renamedInPdf.length} renamed in the PDF`,
    `${report.added.length} new`,
    `${report.removed.length} removed`,
  ];
  if (report.dropped.length > 0) parts.push(`${plural(report.dropped.length, 'setting')} dropped`);
  return (
    <div class="mapping" data-testid="mapping-report">
      <p class="small mapping-summary">{parts.join(' · ')}</p>
      <Group title={`Renamed in the PDF (${report.renamedInPdf.length})`} count={report.renamedInPdf.length}>
        {report.renamedInPdf.map((r) => (
          <li key={r.originalName}>
            <code>{r.from}</code> → <code>{r.originalName}</code> <span class="muted small">key</span>{' '}
            <code>{r.key}</code> <span class="muted small">matched by {r.by}</span>
          </li>
        ))}
      </Group>
      <Group title={`New (${report.added.length})`} count={report.added.length}>
        {report.added.map((f) => (
          <MappedKey key={f.originalName} f={f} />
        ))}
      </Group>
      <Group title={`Removed (${report.removed.length})`} count={report.removed.length}>
        {report.removed.map((f) => (
          <MappedKey key={f.originalName} f={f} />
        ))}
      </Group>
      <Group title={`Settings dropped (${report.dropped.length})`} count={report.dropped.length}>
        {report.dropped.map((d) => (
          <li key={`${d.originalName}-${d.setting}`}>
            <code>{d.key}</code> {d.setting}: <span class="muted">{d.reason}</span>
          </li>
        ))}
      </Group>
      <Group title={`Kept (${report.kept.length})`} count={report.kept.length} closed>
        {report.kept.map((f) => (
          <MappedKey key={f.originalName} f={f} />
        ))}
      </Group>
    </div>
  );
}

function MappedKey({ f }: { f: { key: string; originalName: string } }) {
  return (
    <li>
      <code>{f.key}</code>
      {f.key !== f.originalName && <span class="muted small"> PDF {f.originalName}</span>}
    </li>
  );
}

function Group(props: { title: string; count: number; closed?: boolean; children: ComponentChildren }) {
  if (props.count === 0) return null;
  return (
    <details class="mapping-group" open={!props.closed && props.count <= OPEN_UP_TO}>
      <summary>{props.title}</summary>
      <ul>{props.children}</ul>
    </details>
  );
}
