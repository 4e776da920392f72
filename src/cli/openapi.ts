import { mkdtempSync, rmSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { loadConfig } from '../config.js';
import { createRuntime } from '../bootstrap.js';
import { buildApp } from '../app.js';

/**
 * The servers of the repository's document (openapi/openapi.json): formcast is self-hosted, so its URL is
 * a variable, the PUBLIC_URL of each deployment (a server serves its own at /v1/openapi.json).
 */
const SELF_HOSTED_SERVERS = [
  {
    url: '{baseUrl}',
    description: 'Your formcast server',
    variables: { baseUrl: { default: 'http://localhost:3000', description: 'The PUBLIC_URL of the server' } },
  },
];

/**
 * The OpenAPI document exactly as a server serves it at /v1/openapi.json, built offline: the app is
 * assembled on a scratch SQLite database (never the configured one) and never listens.
 */
async function openapiDocument(serverUrl?: string): Promise<Record<string, unknown>> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'formcast-openapi-'));
  try {
    const config = loadConfig({
      DATA_DIR: dataDir,
      PUBLIC_URL: serverUrl ?? 'http://localhost:3000',
      LOG_LEVEL: 'silent',
      RENDER_WORKERS: '1',
    });
    const runtime = await createRuntime(config);
    try {
      const app = await buildApp(runtime);
      await app.ready();
      const doc = app.swagger() as unknown as Record<string, unknown>;
      await app.close();
      return serverUrl ? doc : { ...doc, servers: SELF_HOSTED_SERVERS };
    } finally {
      await runtime.close();
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** `formcast openapi [-o FILE] [--server URL]`: print (or write) the OpenAPI document. */
export async function openapiCommand(flags: { output?: string; server?: string }): Promise<number> {
  const text = `${JSON.stringify(await openapiDocument(flags.server), null, 2)}\n`;
  if (flags.output) await writeFile(flags.output, text);
  else process.stdout.write(text);
  return 0;
}
