import { useEffect, useState } from 'preact/hooks';
import {
  api,
  type Page,
  type WebhookDelivery,
  type WebhookDeliveryWithPayload,
  type WebhookEndpoint,
} from '../../api.js';
import { ErrorText } from '../../components/Alert.js';
import { Pager } from '../../components/Pager.js';
import { DeliveriesTable } from './DeliveriesTable.js';

const PAGE = 20;
/** How often an open deliveries list looks again while a delivery is due soon (the worker sends it). */
const REFRESH_MS = 1500;

/**
 * An endpoint's deliveries, a page at a time and filtered by status: looked at again while one is due soon,
 * each one can be retried or its payload shown.
 */
export function Deliveries({ endpoint: ep }: { endpoint: WebhookEndpoint }) {
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
        { signal: ctl.signal },
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
        <DeliveriesTable
          url={ep.url}
          deliveries={list.data}
          payload={payload}
          retrying={retrying}
          onRetry={retry}
          onTogglePayload={togglePayload}
        />
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
