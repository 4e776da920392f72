import { useEffect, useState } from 'preact/hooks';
import { api, ApiError, type Page, type WebhookEndpoint } from '../api.js';
import { ErrorText } from '../components/Alert.js';
import { EndpointCard } from './webhooks/EndpointCard.js';
import { EndpointForm } from './webhooks/EndpointForm.js';
import { NotOnPlan } from './webhooks/NotOnPlan.js';
import { SecretReveal, type ShownSecret } from './webhooks/SecretReveal.js';

// Webhook endpoints, their deliveries and their log, through /v1/webhook-endpoints and
// /v1/webhook-deliveries. A signing secret is in two answers only (create, rotate): it is shown once here.
// This page holds the list and the secret just received; each part has its file in webhooks/.

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

  if (notOnPlan) return <NotOnPlan />;

  return (
    <section>
      <h1>Webhooks</h1>
      <p class="lead">
        formcast posts an event to your endpoints when something happens (a render completes, a template changes…),
        signed the <a href="https://www.standardwebhooks.com/">Standard Webhooks</a> way.
      </p>
      <EndpointForm
        onCreated={(endpoint) => {
          setSecret({ endpoint, rotated: false });
          refresh();
        }}
      />
      {secret && <SecretReveal shown={secret} onHide={() => setSecret(null)} />}
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
