// The dashboard's only way to the service: the public /v1 API with the key the user signed in with.
// The key lives in sessionStorage: it is gone when the tab closes and never reaches another tab.

const KEY_ITEM = 'formcast.apiKey';

export function storedKey(): string | null {
  return sessionStorage.getItem(KEY_ITEM);
}
export function storeKey(key: string | null): void {
  if (key) sessionStorage.setItem(KEY_ITEM, key);
  else sessionStorage.removeItem(KEY_ITEM);
}

export interface ErrorDetails {
  field?: string;
  expected?: string;
  received?: string;
  [k: string]: unknown;
}

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
      const json = (await res.json()) as { error?: { code: string; message: string; details?: ErrorDetails } };
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

// The API's shapes, as the dashboard reads them.
export interface Template {
  id: string;
  name: string;
  description?: string;
  fileName: string;
  fileSize: number;
  fieldCount: number;
  isFrozen: boolean;
  version: number;
  createdAt: string;
  updatedAt: string;
}
export interface Widget {
  page: number;
  rect: [number, number, number, number];
}
export interface SchemaField {
  name: string;
  type: 'text' | 'checkbox' | 'radio' | 'dropdown' | 'date' | 'number' | 'signature';
  required: boolean;
  maxLength?: number;
  options?: string[];
  label?: string | null;
  pdfMeta: {
    originalName: string;
    page: number;
    readOnly?: boolean;
    rect?: [number, number, number, number];
    widgets?: Widget[];
  };
}
export interface TemplateSchema {
  templateId: string;
  templateName: string;
  version: number;
  schema: { fields: SchemaField[]; pageCount: number; removedFromOutput: { feature: string; description: string }[] };
}
export interface Page<T> {
  data: T[];
  meta: { page: number; limit: number; total: number };
}
export interface RenderItem {
  id: string;
  templateId: string;
  templateName: string;
  status: string;
  fileSize: number;
  durationMs: number;
  expiresAt: string;
  createdAt: string;
  downloadUrl: string | null;
}
export interface RenderCreated {
  renderId: string;
  status: string;
  downloadUrl: string;
  expiresIn: number;
  fileSize: number;
  durationMs: number;
  warnings: string[];
}
export interface Usage {
  plan: string;
  month: string;
  renders: { used: number; limit: number };
  templates: { used: number; limit: number };
  apiKeys: { used: number; limit: number };
  features: { webhooksEnabled: boolean; watermark: boolean; retentionDays: number };
}
export interface ApiKey {
  id: string;
  name: string;
  prefix: string;
  createdAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
}

// Webhooks: exactly the TypeBox schemas of src/modules/webhooks/routes.ts (OpenAPI components
// WebhookEndpoint, WebhookEndpointWithSecret, WebhookDelivery, WebhookAttempt, WebhookEndpointLogEntry).
export interface WebhookEndpoint {
  id: string;
  url: string;
  description: string;
  /** subscribed event types; ["*"] for all */
  events: string[];
  enabled: boolean;
  /** "failing" when the service disabled the endpoint after failing for days */
  disabledReason: string | null;
  /** until when the secret replaced by the last rotation still signs */
  previousSecretExpiresAt: string | null;
  createdAt: string;
  updatedAt: string;
}
export interface WebhookEndpointWithSecret extends WebhookEndpoint {
  /** Standard Webhooks secret (whsec_...), shown only in the create and rotate answers */
  secret: string;
}
export interface WebhookAttempt {
  at: string;
  statusCode: number | null;
  durationMs: number;
  error: string | null;
}
export interface WebhookDelivery {
  id: string;
  endpointId: string;
  eventId: string;
  eventType: string;
  status: 'pending' | 'succeeded' | 'failed';
  attempts: number;
  nextAttemptAt: string | null;
  lastAttemptAt: string | null;
  lastStatusCode: number | null;
  lastError: string | null;
  lastDurationMs: number | null;
  attemptLog: WebhookAttempt[];
  createdAt: string;
  completedAt: string | null;
}
export interface WebhookLogEntry {
  id: string;
  /** created, updated, secret.rotated, disabled or enabled */
  type: string;
  message: string;
  createdAt: string;
}
