import { useState } from 'preact/hooks';
import { api, type WebhookEndpointWithSecret } from '../../api.js';
import { ErrorText } from '../../components/Alert.js';
// the service's own list (a constant with no imports), so the choices can never drift from what it accepts
import { EVENT_TYPES } from '../../../../src/modules/events/event-types.js';

/** "Add an endpoint": URL, description and the events to send; the answer carries the signing secret. */
export function EndpointForm({ onCreated }: { onCreated: (e: WebhookEndpointWithSecret) => void }) {
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
