import { Fragment } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import {
  api,
  ApiError,
  type Page,
  type WebhookDelivery,
  type WebhookDeliveryWithPayload,
  type WebhookEndpoint,
  type WebhookEndpointWithSecret,
  type WebhookEndpointLogEntry,
} from '../api.js';
import { ErrorText } from '../components/Alert.js';
import { Pager } from '../components/Pager.js';
import { formatDate } from '../format.js';
import { BASE, linkClick } from '../router.js';
// the service's own list (a constant with no imports), so the choices can never drift from what it accepts
import { EVENT_TYPES } from '../../../src/modules/events/event-types.js';

// Webhook endpoints, their deliveries and their log, through /v1/webhook-endpoints and
// /v1/webhook-deliveries. A signing secret is in two answers only (create, rotate): it is shown once here.

/** A secret just received, and why: shown until the user hides it or leaves the page. */
interface ShownSecret {
  endpoint: WebhookEndpointWithSecret;
  rotated: boolean;
}

export function WebhooksPage() {
  const [endpoints, setEndpoints] = useState<WebhookEndpoint[] | null>(null);
  const [total, setTotal] = useState(0);
  const [notOnPlan, setNotOnPlan] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [secret, setSecret] = useState<ShownSecret | null>(null);
  const [reload, setReload] = useState(0);

  useEffect(() => {
    api.get<Page<WebhookEndpoint>>('/webhook-endpoints?limit=100').then(
      (r) => {
        setEndpoints(r.data);
        setTotal(r.meta.total);
      },
      (err) => {
        if (err instanceof ApiError && err.code === 'WEBHOOKS_NOT_ENABLED') setNotOnPlan(true);
        else setError(err);
      },
    );
  }, [reload]);
  const refresh = () => setReload((n) => n + 1);

  if (notOnPlan)
    return (
      <section>
        <h1>Webhooks</h1>
        <div class="notice" role="status" data-testid="webhooks-plan">
          <p>
            <strong>Webhooks are available on Pro and Business plans.</strong>
          </p>
          <p>
            With webhooks, formcast posts an event to your server when a render completes or fails, a template changes
            or usage passes a threshold. Your current plan does not include them; see{' '}
            <a href={`${BASE}/usage`} onClick={linkClick}>
              Usage
            </a>{' '}
            for your plan.
          </p>
        </div>
      </section>
    );

  return (
    <section>
      <h1>Webhooks</h1>
      <p class="lead">
        formcast posts an event to your endpoints when something happens (a render completes, a template changes…),
        signed the <a href="https://www.standardwebhooks.com/">Standard Webhooks</a> way.
      </p>
      <CreateForm
        onCreated={(endpoint) => {
          setSecret({ endpoint, rotated: false });
          refresh();
        }}
      />
      {secret && <SecretBox shown={secret} onHide={() => setSecret(null)} />}
      <ErrorText error={error} />
      <h2>Endpoints {endpoints && <span class="muted small">({total})</span>}</h2>
      {endpoints?.length === 0 && <p class="empty">No endpoints yet.</p>}
      {endpoints?.map((ep) => (
        <EndpointCard
          key={ep.id}
          endpoint={ep}
          onChanged={refresh}
          onRotated={(endpoint) => {
            setSecret({ endpoint, rotated: true });
            refresh();
          }}
          onDeleted={() => {
            if (secret?.endpoint.id === ep.id) setSecret(null);
            refresh();
          }}
        />
      ))}
    </section>
  );
}

function CreateForm({ onCreated }: { onCreated: (e: WebhookEndpointWithSecret) => void }) {
  const [url, setUrl] = useState('');
  const [description, setDescription] = useState('');
  const [all, setAll] = useState(true);
  const [chosen, setChosen] = useState<string[]>([]);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);

  const toggle = (type: string, on: boolean) =>
    setChosen((c) => (on ? [...c, type] : c.filter((t) => t !== type)).sort());
  const submit = async (e: Event) => {
    e.preventDefault();
    setError(null);
    if (!all && chosen.length === 0) {
      setError(new Error('Choose at least one event type, or "All events"'));
      return;
    }
    setBusy(true);
    try {
      const res = await api.send<{ data: WebhookEndpointWithSecret }>('POST', '/webhook-endpoints', {
        url: url.trim(),
        events: all ? ['*'] : chosen,
        ...(description.trim() ? { description: description.trim() } : {}),
      });
      setUrl('');
      setDescription('');
      setAll(true);
      setChosen([]);
      onCreated(res.data);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };

  return (
    <form class="card stack webhook-form" onSubmit={submit} aria-labelledby="wh-new">
      <h2 id="wh-new" class="h3">
        Add an endpoint
      </h2>
      <label for="wh-url">Endpoint URL</label>
      <input
        id="wh-url"
        type="url"
        required
        maxLength={2048}
        placeholder="https://example.com/formcast"
        aria-describedby="wh-url-hint"
        value={url}
        onInput={(e) => setUrl((e.target as HTMLInputElement).value)}
      />
      <p id="wh-url-hint" class="hint">
        An https URL of a public host.
      </p>
      <label for="wh-description">Description (optional)</label>
      <input
        id="wh-description"
        maxLength={2000}
        placeholder="e.g. CRM sync"
        value={description}
        onInput={(e) => setDescription((e.target as HTMLInputElement).value)}
      />
      <fieldset class="events-choice">
        <legend>Events to send</legend>
        <label class="choice">
          <input type="radio" name="wh-events" checked={all} onChange={() => setAll(true)} /> All events, including
          types added later
        </label>
        <label class="choice">
          <input type="radio" name="wh-events" checked={!all} onChange={() => setAll(false)} /> Only these:
        </label>
        <ul class="event-types" aria-label="Event types">
          {EVENT_TYPES.map((type) => (
            <li key={type}>
              <label class="choice">
                <input
                  type="checkbox"
                  disabled={all}
                  checked={all || chosen.includes(type)}
                  onChange={(e) => toggle(type, (e.target as HTMLInputElement).checked)}
                />{' '}
                <code>{type}</code>
              </label>
            </li>
          ))}
        </ul>
      </fieldset>
      <button type="submit" class="primary" disabled={busy}>
        Add endpoint
      </button>
      <ErrorText error={error} />
    </form>
  );
}

/** The signing secret, this once: with a copy button, and focus moved to it so keyboard users land there. */
function SecretBox({ shown, onHide }: { shown: ShownSecret; onHide: () => void }) {
  const { endpoint, rotated } = shown;
  const [copied, setCopied] = useState(false);
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    setCopied(false);
    heading.current?.focus();
  }, [endpoint.secret]);
  /** The clipboard API needs a secure context (https or localhost); elsewhere select the secret to copy. */
  const copy = () => {
    const select = () => {
      const el = document.querySelector('[data-testid="webhook-secret"]');
      if (el) window.getSelection()?.selectAllChildren(el);
    };
    if (navigator.clipboard) navigator.clipboard.writeText(endpoint.secret).then(() => setCopied(true), select);
    else select();
  };
  return (
    <section class="card secret secret-once" aria-labelledby="wh-secret-title">
      <h2 id="wh-secret-title" class="h3" tabIndex={-1} ref={heading}>
        {rotated ? 'New signing secret' : 'Signing secret'} for <code>{endpoint.url}</code>
      </h2>
      <p>
        <strong>Shown this once only.</strong> Copy it into your receiver now: formcast cannot show it again (you can
        rotate it to get a new one).
      </p>
      {rotated && (
        <p>
          The previous secret keeps signing for 24 hours
          {endpoint.previousSecretExpiresAt ? ` (until ${formatDate(endpoint.previousSecretExpiresAt)})` : ''}, so your
          receiver can switch over without missing an event.
        </p>
      )}
      <p class="secret-value">
        <code data-testid="webhook-secret">{endpoint.secret}</code>
      </p>
      <p class="actions">
        <button type="button" onClick={copy}>
          {copied ? 'Copied' : 'Copy secret'}
        </button>
        <button type="button" class="link" onClick={onHide}>
          Done, hide it
        </button>
        <span class="visually-hidden" aria-live="polite">
          {copied ? 'Secret copied to the clipboard' : ''}
        </span>
      </p>
    </section>
  );
}

function EndpointCard({
  endpoint: ep,
  onChanged,
  onRotated,
  onDeleted,
}: {
  endpoint: WebhookEndpoint;
  onChanged: () => void;
  onRotated: (e: WebhookEndpointWithSecret) => void;
  onDeleted: () => void;
}) {
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const [panel, setPanel] = useState<'deliveries' | 'log' | null>(null);
  const [deliveriesKey, setDeliveriesKey] = useState(0);
  const [message, setMessage] = useState('');
  const titleId = `wh-${ep.id}`;

  const act = async (fn: () => Promise<void>) => {
    setError(null);
    setMessage('');
    setBusy(true);
    try {
      await fn();
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  const setEnabled = (enabled: boolean) =>
    act(async () => {
      await api.send('PATCH', `/webhook-endpoints/${ep.id}`, { enabled });
      onChanged();
    });
  const rotate = () => {
    if (
      !window.confirm(
        `Rotate the signing secret of ${ep.url}? The new secret is shown once; the current one keeps signing for 24 hours.`,
      )
    )
      return;
    return act(async () => {
      const res = await api.send<{ data: WebhookEndpointWithSecret }>(
        'POST',
        `/webhook-endpoints/${ep.id}/rotate-secret`,
      );
      onRotated(res.data);
    });
  };
  const remove = () => {
    if (!window.confirm(`Delete the webhook endpoint ${ep.url}, with its deliveries and log? This cannot be undone.`))
      return;
    return act(async () => {
      await api.delete(`/webhook-endpoints/${ep.id}`);
      onDeleted();
    });
  };
  const test = () =>
    act(async () => {
      await api.send('POST', `/webhook-endpoints/${ep.id}/test`);
      setMessage('Test event queued: it shows in the deliveries below.');
      setPanel('deliveries');
      setDeliveriesKey((n) => n + 1);
    });

  const all = ep.events.includes('*');
  return (
    <article class="card endpoint" aria-labelledby={titleId} data-endpoint={ep.id}>
      <h3 id={titleId} class="endpoint-url">
        <code>{ep.url}</code>{' '}
        {ep.enabled ? (
          <span class="badge status-succeeded" data-testid="endpoint-state">
            enabled
          </span>
        ) : (
          <span class="badge status-failed" data-testid="endpoint-state">
            disabled
          </span>
        )}
      </h3>
      {!ep.enabled && ep.disabledReason === 'failing' && (
        <p class="alert" data-testid="disabled-reason">
          formcast disabled this endpoint because every attempt to reach it failed for days. Fix the receiver, then
          enable it again.
        </p>
      )}
      {!ep.enabled && ep.disabledReason && ep.disabledReason !== 'failing' && (
        <p class="alert">Disabled: {ep.disabledReason}</p>
      )}
      {ep.description && <p>{ep.description}</p>}
      <dl class="facts small">
        <dt>Events</dt>
        <dd>
          {all
            ? 'all events'
            : ep.events.map((t, i) => (
                <Fragment key={t}>
                  {i > 0 && ', '}
                  <code>{t}</code>
                </Fragment>
              ))}
        </dd>
        <dt>Created</dt>
        <dd>{formatDate(ep.createdAt)}</dd>
        <dt>Id</dt>
        <dd>
          <code>{ep.id}</code>
        </dd>
        {ep.previousSecretExpiresAt && (
          <>
            <dt>Previous secret</dt>
            <dd>still signs until {formatDate(ep.previousSecretExpiresAt)}</dd>
          </>
        )}
      </dl>
      <div class="actions">
        <button type="button" disabled={busy} onClick={test}>
          Send test event
        </button>
        <button type="button" disabled={busy} onClick={() => setEnabled(!ep.enabled)}>
          {ep.enabled ? 'Disable' : 'Enable'}
        </button>
        <button type="button" disabled={busy} onClick={rotate}>
          Rotate secret
        </button>
        <button type="button" class="danger" disabled={busy} onClick={remove}>
          Delete
        </button>
      </div>
      <p class="small" role="status">
        {message}
      </p>
      <ErrorText error={error} />
      <div class="actions panel-toggles">
        <button
          type="button"
          aria-expanded={panel === 'deliveries'}
          aria-controls={`${titleId}-panel`}
          onClick={() => setPanel(panel === 'deliveries' ? null : 'deliveries')}
        >
          {panel === 'deliveries' ? 'Hide deliveries' : 'Show deliveries'}
        </button>
        <button
          type="button"
          aria-expanded={panel === 'log'}
          aria-controls={`${titleId}-panel`}
          onClick={() => setPanel(panel === 'log' ? null : 'log')}
        >
          {panel === 'log' ? 'Hide log' : 'Show log'}
        </button>
      </div>
      <div id={`${titleId}-panel`}>
        {panel === 'deliveries' && <Deliveries key={deliveriesKey} endpoint={ep} />}
        {panel === 'log' && <EndpointLog endpoint={ep} />}
      </div>
    </article>
  );
}

const PAGE = 20;
/** How often an open deliveries list looks again while a delivery is due soon (the worker sends it). */
const REFRESH_MS = 1500;

function Deliveries({ endpoint: ep }: { endpoint: WebhookEndpoint }) {
  const [list, setList] = useState<Page<WebhookDelivery> | null>(null);
  const [page, setPage] = useState(1);
  const [error, setError] = useState<unknown>(null);
  const [reload, setReload] = useState(0);
  const [retrying, setRetrying] = useState<string | null>(null);
  const [status, setStatus] = useState<'' | WebhookDelivery['status']>('');
  const [payload, setPayload] = useState<{ id: string; body: unknown } | null>(null);

  useEffect(() => {
    const ctl = new AbortController();
    api
      .get<Page<WebhookDelivery>>(
        `/webhook-endpoints/${ep.id}/deliveries?page=${page}&limit=${PAGE}${status ? `&status=${status}` : ''}`,
        {
          signal: ctl.signal,
        },
      )
      .then(setList, (err) => {
        if ((err as Error).name !== 'AbortError') setError(err);
      });
    return () => ctl.abort();
  }, [ep.id, page, status, reload]);

  // look again while a pending delivery is due within a minute: its outcome shows without a click
  const dueSoon = list?.data.some(
    (d) => d.status === 'pending' && (!d.nextAttemptAt || new Date(d.nextAttemptAt).getTime() - Date.now() < 60_000),
  );
  useEffect(() => {
    if (!dueSoon) return;
    const t = setTimeout(() => setReload((n) => n + 1), REFRESH_MS);
    return () => clearTimeout(t);
  }, [dueSoon, list]);

  const retry = async (d: WebhookDelivery) => {
    setError(null);
    setRetrying(d.id);
    try {
      await api.send('POST', `/webhook-deliveries/${d.id}/retry`);
      setReload((n) => n + 1);
    } catch (err) {
      setError(err);
    } finally {
      setRetrying(null);
    }
  };

  /** The exact body the delivery sends (GET /webhook-deliveries/:id), shown under its row. */
  const togglePayload = async (d: WebhookDelivery) => {
    if (payload?.id === d.id) return setPayload(null);
    setError(null);
    try {
      const res = await api.get<{ data: WebhookDeliveryWithPayload }>(`/webhook-deliveries/${d.id}`);
      setPayload({ id: d.id, body: res.data.payload });
    } catch (err) {
      setError(err);
    }
  };

  return (
    <div class="deliveries">
      <div class="panel-head">
        <h4>Deliveries</h4>
        <button type="button" class="link" onClick={() => setReload((n) => n + 1)}>
          Refresh
        </button>
        <label for={`${ep.id}-status`} class="small">
          Show
        </label>
        <select
          id={`${ep.id}-status`}
          value={status}
          onChange={(e) => {
            setStatus((e.target as HTMLSelectElement).value as typeof status);
            setPage(1);
          }}
        >
          <option value="">all deliveries</option>
          <option value="pending">pending</option>
          <option value="succeeded">succeeded</option>
          <option value="failed">failed</option>
        </select>
      </div>
      <ErrorText error={error} />
      {list && list.data.length === 0 && (
        <p class="empty">
          {status ? `No ${status} deliveries.` : 'No deliveries yet. Send a test event to try the endpoint.'}
        </p>
      )}
      {list && list.data.length > 0 && (
        <div class="table-wrap">
          <table>
            <caption class="visually-hidden">Deliveries to {ep.url}, newest first</caption>
            <thead>
              <tr>
                <th scope="col">Created</th>
                <th scope="col">Event</th>
                <th scope="col">Status</th>
                <th scope="col">Attempts</th>
                <th scope="col">Last answer</th>
                <th scope="col">Duration</th>
                <th scope="col">Next attempt</th>
                <th scope="col">
                  <span class="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {list.data.map((d) => (
                <Fragment key={d.id}>
                  <tr data-delivery={d.id} data-status={d.status}>
                    <td data-label="Created">{formatDate(d.createdAt)}</td>
                    <td data-label="Event">
                      <code>{d.eventType}</code>
                    </td>
                    <td data-label="Status">
                      <span class={`badge status-${d.status}`}>{d.status}</span>
                    </td>
                    <td data-label="Attempts">{d.attempts}</td>
                    <td data-label="Last answer">
                      <div>
                        {d.lastStatusCode !== null ? (
                          <span>HTTP {d.lastStatusCode}</span>
                        ) : d.attempts > 0 ? (
                          <span class="error">no answer</span>
                        ) : (
                          '—'
                        )}
                        {d.lastError && <span class="muted small delivery-error">{errorDetail(d)}</span>}
                        {d.attemptLog.length > 1 && <AttemptLog delivery={d} />}
                      </div>
                    </td>
                    <td data-label="Duration">{d.lastDurationMs !== null ? `${d.lastDurationMs} ms` : '—'}</td>
                    <td data-label="Next attempt">
                      {d.status === 'pending' ? (d.nextAttemptAt ? formatDate(d.nextAttemptAt) : 'now') : '—'}
                    </td>
                    <td data-label="Actions">
                      <span class="row-actions">
                        <button
                          type="button"
                          disabled={retrying === d.id}
                          aria-label={`Retry the ${d.eventType} delivery of ${formatDate(d.createdAt)}`}
                          onClick={() => retry(d)}
                        >
                          Retry
                        </button>
                        <button
                          type="button"
                          aria-expanded={payload?.id === d.id}
                          aria-label={`Payload of the ${d.eventType} delivery of ${formatDate(d.createdAt)}`}
                          onClick={() => togglePayload(d)}
                        >
                          Payload
                        </button>
                      </span>
                    </td>
                  </tr>
                  {payload?.id === d.id && (
                    <tr class="payload-row">
                      <td colSpan={8} data-label="Payload">
                        <pre data-testid="delivery-payload">{JSON.stringify(payload.body, null, 2)}</pre>
                      </td>
                    </tr>
                  )}
                </Fragment>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {list && (
        <Pager
          page={page}
          limit={PAGE}
          total={list.meta.total}
          onPage={setPage}
          label={`Pages of deliveries to ${ep.url}`}
          previous="Newer"
          next="Older"
        />
      )}
    </div>
  );
}

/** The error of the last attempt without the "HTTP 500: " the answer column already says. */
function errorDetail(d: WebhookDelivery): string {
  const prefix = d.lastStatusCode !== null ? `HTTP ${d.lastStatusCode}: ` : '';
  return prefix && d.lastError?.startsWith(prefix) ? d.lastError.slice(prefix.length) : (d.lastError ?? '');
}

function AttemptLog({ delivery: d }: { delivery: WebhookDelivery }) {
  return (
    <details class="attempt-log">
      <summary>All {d.attemptLog.length} attempts</summary>
      <ol>
        {d.attemptLog.map((a) => (
          <li key={a.at}>
            <time dateTime={a.at}>{formatDate(a.at)}</time>:{' '}
            {a.statusCode !== null ? `HTTP ${a.statusCode}` : 'no answer'} in {a.durationMs} ms
            {a.error ? ` (${a.error})` : ''}
          </li>
        ))}
      </ol>
    </details>
  );
}

function EndpointLog({ endpoint: ep }: { endpoint: WebhookEndpoint }) {
  const [log, setLog] = useState<WebhookEndpointLogEntry[] | null>(null);
  const [error, setError] = useState<unknown>(null);
  useEffect(() => {
    api
      .get<Page<WebhookEndpointLogEntry>>(`/webhook-endpoints/${ep.id}/log?limit=100`)
      .then((r) => setLog(r.data), setError);
  }, [ep.id, ep.updatedAt]);
  return (
    <div class="endpoint-log">
      <h4>Log</h4>
      <ErrorText error={error} />
      {log?.length === 0 && <p class="empty">Nothing logged yet.</p>}
      {log && log.length > 0 && (
        <ol class="log" aria-label={`Log of ${ep.url}, newest first`}>
          {log.map((e) => (
            <li key={e.id} data-log={e.type}>
              <time dateTime={e.createdAt}>{formatDate(e.createdAt)}</time> <span class="badge">{e.type}</span>{' '}
              {e.message}
            </li>
          ))}
        </ol>
      )}
    </div>
  );
}
