import type { EventsTable } from '../../adapters/db/schema.js';

/**
 * The body of every delivery of an event: `{ id, type, createdAt, data }`, `data` as stored (the API's
 * shape for that object). Built from the stored text, so every attempt sends the very same bytes.
 */
export function eventPayload(event: Pick<EventsTable, 'id' | 'type' | 'created_at' | 'data'>): string {
  return `{"id":${JSON.stringify(event.id)},"type":${JSON.stringify(event.type)},"createdAt":${JSON.stringify(event.created_at)},"data":${event.data}}`;
}
