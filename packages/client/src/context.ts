import type { Client } from 'openapi-fetch';
import type { paths } from './generated/schema.js';
import type { Fetch } from './transport.js';

/** What each resource's helpers are built on: the typed openapi-fetch client and the bare fetch (links). */
export interface Context {
  raw: Client<paths>;
  /** the client's fetch (retries, network errors) without the API key: for signed links */
  send: Fetch;
}
