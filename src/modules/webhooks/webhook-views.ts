import type {
  WebhookDeliveriesTable,
  WebhookEndpointLogTable,
  WebhookEndpointsTable,
} from '../../adapters/db/schema.js';

// API shapes of endpoints, deliveries and endpoint log entries, built from their rows.

export interface WebhookEndpointView {
  id: string;
  url: string;
  description: string;
  /** subscribed event types, or ["*"] for all */
  events: string[];
  enabled: boolean;
  /** set when the service disabled the endpoint (e.g. "failing"); null otherwise */
  disabledReason: string | null;
  /** until when the secret replaced by the last rotation still signs; null when none does */
  previousSecretExpiresAt: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface AttemptRecord {
  at: string;
  statusCode: number | null;
  durationMs: number;
  error: string | null;
}

export const DELIVERY_STATUSES = ['pending', 'succeeded', 'failed'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

export interface WebhookDeliveryView {
  id: string;
  endpointId: string;
  eventId: string;
  eventType: string;
  /** pending (scheduled or in flight), succeeded, failed (given up or endpoint disabled) */
  status: DeliveryStatus;
  attempts: number;
  nextAttemptAt: string | null;
  lastAttemptAt: string | null;
  lastStatusCode: number | null;
  lastError: string | null;
  lastDurationMs: number | null;
  attemptLog: AttemptRecord[];
  createdAt: string;
  completedAt: string | null;
}

export function toEndpointView(row: WebhookEndpointsTable, now: Date): WebhookEndpointView {
  const previousLive = row.previous_secret_expires_at && row.previous_secret_expires_at > now.toISOString();
  return {
    id: row.id,
    url: row.url,
    description: row.description,
    events: JSON.parse(row.events) as string[],
    enabled: Boolean(row.enabled),
    disabledReason: row.disabled_reason,
    previousSecretExpiresAt: previousLive ? row.previous_secret_expires_at : null,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export function toDeliveryView(row: WebhookDeliveriesTable): WebhookDeliveryView {
  return {
    id: row.id,
    endpointId: row.endpoint_id,
    eventId: row.event_id,
    eventType: row.event_type,
    status: row.status as DeliveryStatus,
    attempts: row.attempts,
    // while an attempt is in flight next_attempt_at holds its lease: not a scheduled attempt
    nextAttemptAt: row.status === 'pending' && !row.claimed_by ? row.next_attempt_at : null,
    lastAttemptAt: row.last_attempt_at,
    lastStatusCode: row.last_status_code,
    lastError: row.last_error,
    lastDurationMs: row.last_duration_ms,
    attemptLog: JSON.parse(row.attempt_log) as AttemptRecord[],
    createdAt: row.created_at,
    completedAt: row.completed_at,
  };
}

export function toLogView(row: WebhookEndpointLogTable) {
  return { id: row.id, type: row.type, message: row.message, createdAt: row.created_at };
}
