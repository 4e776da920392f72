import createFetchClient, { type Client } from 'openapi-fetch';
import { accountApi } from './account.js';
import { apiKeysApi } from './api-keys.js';
import { batchesApi } from './batches.js';
import type { Context } from './context.js';
import type { paths } from './generated/schema.js';
import { rendersApi } from './renders.js';
import { signingCertificatesApi } from './signing-certificates.js';
import { type RetryOptions, retryingFetch } from './retry.js';
import { templatesApi } from './templates.js';
import { networkErrors } from './transport.js';
import { webhooksApi } from './webhooks.js';

export interface ClientOptions {
  /** The server's address, e.g. https://formcast.example.com (without /v1). */
  baseUrl: string;
  /** An API key (fc_live_...), sent as Authorization: Bearer. */
  apiKey: string;
  /** A fetch implementation (default: globalThis.fetch). */
  fetch?: (request: Request) => Promise<Response>;
  /** Retries on 429 RATE_LIMITED, 503 and 409 IDEMPOTENCY_KEY_IN_USE; false turns them off. */
  retry?: RetryOptions | false;
}

export type FormcastClient = ReturnType<typeof createClient>;

/**
 * A client for the formcast API. Methods return the resource (the `data` of the answer) and throw
 * FormcastError on error answers and when the server cannot be reached (NETWORK_ERROR); `raw` is the
 * typed openapi-fetch client for anything else.
 */
export function createClient(options: ClientOptions) {
  const baseFetch = options.fetch ?? ((request: Request) => globalThis.fetch(request));
  // retries see the bare failures (to decide), the caller a FormcastError
  const send = networkErrors(options.retry === false ? baseFetch : retryingFetch(baseFetch, options.retry));
  const baseUrl = options.baseUrl.replace(/\/+$/, '');
  const raw: Client<paths> = createFetchClient<paths>({
    baseUrl,
    fetch: send,
    headers: { Authorization: `Bearer ${options.apiKey}` },
  });
  const context: Context = { raw, send };
  const { renders, usage } = rendersApi(context);
  const webhooks = webhooksApi(context);
  return {
    raw,
    templates: templatesApi(context),
    renders,
    batches: batchesApi(context),
    usage,
    apiKeys: apiKeysApi(context),
    account: accountApi(context),
    signingCertificates: signingCertificatesApi(context),
    webhookEndpoints: webhooks.endpoints,
    webhookDeliveries: webhooks.deliveries,
  };
}
