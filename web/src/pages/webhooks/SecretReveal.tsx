import { useEffect, useRef, useState } from 'preact/hooks';
import type { WebhookEndpointWithSecret } from '../../api.js';
import { formatDate } from '../../format.js';

/** A secret just received, and why: shown until the user hides it or leaves the page. */
export interface ShownSecret {
  endpoint: WebhookEndpointWithSecret;
  rotated: boolean;
}

/** The signing secret, this once: with a copy button, and focus moved to it so keyboard users land there. */
export function SecretReveal({ shown, onHide }: { shown: ShownSecret; onHide: () => void }) {
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
