// The dashboard's only way to the service: the public /v1 API with the key the user signed in with.
// The key lives in sessionStorage: it is gone when the tab closes and never reaches another tab.

import type { components } from './generated/schema.js';

const KEY_ITEM = 'formcast.apiKey';

export function storedKey(): string | null {
  return sessionStorage.getItem(KEY_ITEM);
}
export function storeKey(key: string | null): void {
  if (key) sessionStorage.setItem(KEY_ITEM, key);
  else sessionStorage.removeItem(KEY_ITEM);
}

/** The `details` of an error answer (VALIDATION_ERROR: field, expected, received). */
type ErrorDetails = NonNullable<components['schemas']['Error']['error']['details']>;

/** An error answer of the API, with its envelope. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details?: ErrorDetails,
  ) {
    super(message);
  }
}

/** Called when the key stops working (revoked, deleted account): the app signs out. */
let onUnauthorized: () => void = () => {};
export function setUnauthorizedHandler(fn: () => void): void {
  onUnauthorized = fn;
}

async function call(method: string, path: string, body?: unknown, opts: { key?: string; signal?: AbortSignal } = {}) {
  const key = opts.key ?? storedKey();
  const headers: Record<string, string> = {};
  if (key) headers.authorization = `Bearer ${key}`;
  let payload: BodyInit | undefined;
  if (body instanceof FormData) payload = body;
  else if (body !== undefined) {
    headers['content-type'] = 'application/json';
    payload = JSON.stringify(body);
  }
  let res: Response;
  try {
    res = await fetch(`/v1${path}`, { method, headers, body: payload, signal: opts.signal });
  } catch (err) {
    if ((err as Error).name === 'AbortError') throw err;
    throw new ApiError(0, 'NETWORK_ERROR', 'The service could not be reached; check your connection and retry');
  }
  if (!res.ok) {
    let code = 'HTTP_ERROR';
    let message = `The service answered ${res.status}`;
    let details: ErrorDetails | undefined;
    try {
      const json = (await res.json()) as Partial<components['schemas']['Error']>;
      if (json.error) ({ code, message, details } = json.error);
    } catch {
      /* not JSON: keep the generic message */
    }
    if (res.status === 401 && !opts.key) onUnauthorized();
    throw new ApiError(res.status, code, message, details);
  }
  return res;
}

export const api = {
  async get<T>(path: string, opts?: { key?: string; signal?: AbortSignal }): Promise<T> {
    return (await (await call('GET', path, undefined, opts)).json()) as T;
  },
  async send<T>(method: 'POST' | 'PATCH' | 'PUT', path: string, body?: unknown): Promise<T> {
    return (await (await call(method, path, body)).json()) as T;
  },
  async delete(path: string): Promise<void> {
    await call('DELETE', path);
  },
  /** A binary answer (a PDF) and its headers. */
  async bytes(method: 'GET' | 'POST', path: string, body?: unknown, signal?: AbortSignal) {
    const res = await call(method, path, body, { signal });
    return { bytes: new Uint8Array(await res.arrayBuffer()), headers: res.headers };
  },
};

// The API's shapes, generated from openapi/openapi.json into generated/schema.ts (npm run generate:web,
// run by build:web) as the SDK's are: a change of the API shows here as a type error, not as drift.
type Schemas = components['schemas'];
export type Template = Schemas['Template'];
export type SchemaField = Schemas['SchemaField'];
export type TemplateSchema = Schemas['TemplateSchema'];
export type Render = Schemas['Render'];
export type RenderListItem = Schemas['RenderListItem'];
export type Usage = Schemas['Usage'];
export type ApiKey = Schemas['ApiKey'];
export type ApiKeyCreated = Schemas['ApiKeyCreated'];
export type AccountSettings = Schemas['AccountSettings'];
export type SigningCertificate = Schemas['SigningCertificate'];
export type WebhookEndpoint = Schemas['WebhookEndpoint'];
export type WebhookEndpointWithSecret = Schemas['WebhookEndpointWithSecret'];
export type WebhookDelivery = Schemas['WebhookDelivery'];
export type WebhookDeliveryWithPayload = Schemas['WebhookDeliveryWithPayload'];
export type WebhookEndpointLogEntry = Schemas['WebhookEndpointLogEntry'];

/** One page of a list: `{ data, meta: { page, limit, total } }`. */
export interface Page<T> {
  data: T[];
  meta: Schemas['PageMeta'];
}
