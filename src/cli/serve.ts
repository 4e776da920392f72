import type { Config } from '../config.js';
import { createRuntime } from '../bootstrap.js';
import { buildApp } from '../app.js';
import { tuneServerHeap } from '../heap-tuning.js';
import { listAccounts } from '../modules/accounts/accounts.js';

/** Start the API; resolves -1 (keep running) and shuts down gracefully on SIGTERM/SIGINT. */
export async function serve(config: Config): Promise<number> {
  tuneServerHeap();
  const runtime = await createRuntime(config, {}, { housekeeping: true });
  const app = await buildApp(runtime);
  try {
    await app.listen({ port: config.port, host: config.host });
  } catch (err) {
    await runtime.close(); // e.g. the port is taken: release the database and workers, then report
    throw err;
  }
  runtime.log.info(`Dashboard: ${config.publicUrl.replace(/\/+$/, '')}/app (sign in with an API key)`);

  if ((await listAccounts(runtime)).length === 0) {
    runtime.log.info(
      'No accounts yet. Create one and its first API key with:\n  npx formcast accounts create --name "My team" --plan Free --json\n(with the same DATA_DIR / DATABASE_URL as this server), then sign in at /app with the key it prints',
    );
  }

  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    runtime.log.info({ signal }, 'shutting down: no new connections, finishing in-flight requests');
    // Not unref'd: it keeps the process alive until close() has run to its end (the database closed);
    // once the sockets and workers are gone nothing else would, and Node would exit halfway through.
    const force = setTimeout(() => process.exit(1), 30_000);
    try {
      await app.close(); // stops accepting and waits for in-flight requests
      await runtime.close();
      runtime.log.info({ signal }, 'shut down: requests finished, workers stopped, database closed');
    } finally {
      clearTimeout(force);
    }
  };
  const onSignal = (signal: string) =>
    shutdown(signal).catch((err) => {
      runtime.log.error({ err }, 'shutdown failed');
      process.exitCode = 1;
    });
  process.once('SIGTERM', () => void onSignal('SIGTERM'));
  process.once('SIGINT', () => void onSignal('SIGINT'));
  return -1;
}
