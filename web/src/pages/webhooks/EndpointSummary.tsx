import { Fragment } from 'preact';
import type { WebhookEndpoint } from '../../api.js';
import { formatDate } from '../../format.js';

/** What an endpoint is: why it is disabled if it is, its description, events, creation, id, secret rotation. */
export function EndpointSummary({ endpoint: ep }: { endpoint: WebhookEndpoint }) {
  const all = ep.events.includes('*');
  return (
    <>
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
    </>
  );
}
