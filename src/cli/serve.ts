import type { Config } from '../config.js';
import { createRuntime } from '../bootstrap.js';
import { buildApp } from '../app.js';
import { listAccounts } from '../modules/accounts/accounts.js';
import { startSweeper } from '../modules/renders/retention.js';

/** Start the API; resolves -1 (keep running) and shuts down gracefully on SIGTERM/SIGINT. */
export async function serve(config: Config): Promise<number> {
  const runtime = await createRuntime(config);
  const app = await buildApp(runtime);
  const stopSweeper = startSweeper(runtime);
  await app.listen({ port: config.port, host: config.host });

  if ((await listAccounts(runtime)).length === 0) {
    runtime.log.info(
      'No accounts yet. Create one and its first API key with:\n  npx formcast accounts create --name "My team" --plan Free --json\n(with the same DATA_DIR / DATABASE_URL as this server)',
    );
  }

  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    runtime.log.info({ signal }, 'shutting down: no new connections, finishing in-flight requests');
    const force = setTimeout(() => process.exit(1), 30_000);
    force.unref();
    try {
      await app.close(); // stops accepting and waits for in-flight requests
      await stopSweeper();
      await runtime.close();
    } finally {
      clearTimeout(force);
    }
  };
  process.once('SIGTERM', () => void shutdown('SIGTERM'));
  process.once('SIGINT', () => void shutdown('SIGINT'));
  return -1;
}
