import { parseArgs } from 'node:util';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { CachedBundle } from './cli/code-cache.js';
import { commandHelp, isCommand, OVERVIEW, usageError } from './cli/help.js';
import { ConfigError, loadConfig } from './config.js';

/** The version of the installed package (package.json sits beside src/ and dist/). */
function version(): string {
  return (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version;
}

type RenderModule = typeof import('./cli/render.js');

/**
 * The render command: from the build's one-file bundle through the V8 code cache (src/cli/code-cache.ts),
 * else (sources run by tsx, or a build without the bundling step) from its modules.
 */
async function loadRender(): Promise<CachedBundle<RenderModule>> {
  const bundle = fileURLToPath(new URL('./cli/render.cjs', import.meta.url));
  if (existsSync(bundle)) return (await import('./cli/code-cache.js')).loadBundle<RenderModule>(bundle);
  return { exports: await import('./cli/render.js'), cacheUsed: false, save: () => undefined };
}

async function main(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      name: { type: 'string' },
      plan: { type: 'string' },
      account: { type: 'string' },
      key: { type: 'string' },
      json: { type: 'boolean', default: false },
      output: { type: 'string', short: 'o' },
      combine: { type: 'string' },
      workers: { type: 'string' },
      'no-flatten': { type: 'boolean', default: false },
      'no-calculate': { type: 'boolean', default: false },
      watermark: { type: 'boolean', default: false },
      strict: { type: 'boolean', default: false },
      locale: { type: 'string' },
      timezone: { type: 'string' },
      server: { type: 'string' },
      check: { type: 'boolean', default: false },
      url: { type: 'string' },
      'api-key': { type: 'string' },
      sign: { type: 'string' },
      'sign-password': { type: 'string' },
      tsa: { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
      version: { type: 'boolean', short: 'v', default: false },
    },
  });
  const [command, sub, ...rest] = positionals;
  if (values.version || command === 'version') {
    console.log(version());
    return 0;
  }
  if (command === 'help') {
    if (values.help) console.log(commandHelp('help'));
    else if (!sub) console.log(OVERVIEW);
    else if (isCommand(sub)) console.log(commandHelp(sub));
    else return usageError(`no command "${sub}"`);
    return 0;
  }
  if (!command) {
    if (values.help) {
      console.log(OVERVIEW);
      return 0;
    }
    return usageError('no command given');
  }
  if (!isCommand(command)) return usageError(`unknown command "${command}"`);
  if (values.help) {
    console.log(commandHelp(command));
    return 0;
  }
  // Commands are loaded on demand so that `accounts` and `keys` do not pay for the PDF engine's start-up.
  if (command === 'render') {
    const render = await loadRender();
    const code = await render.exports.renderCommand([sub, ...rest].filter(Boolean) as string[], values);
    // after a render that succeeded: a cache holds what its run compiled (a failed run's would be thin)
    if (code === 0) render.save();
    return code;
  }
  if (command === 'openapi') return (await import('./cli/openapi.js')).openapiCommand(values);
  if (command === 'types')
    return (await import('./cli/types.js')).typesCommand([sub, ...rest].filter(Boolean) as string[], values);
  if (command === 'batch')
    return (await import('./cli/batch.js')).batchCommand([sub, ...rest].filter(Boolean) as string[], values);
  const config = loadConfig();
  switch (command) {
    case 'serve':
      return (await import('./cli/serve.js')).serve(config);
    case 'accounts':
      return (await import('./cli/accounts.js')).accountsCommand(config, sub, values);
    case 'keys':
      return (await import('./cli/keys.js')).keysCommand(config, sub, values);
    case 'backup':
      return (await import('./cli/backup.js')).backupCommand(config, sub, values);
    default:
      return usageError(`unknown command "${command}"`);
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    if (code !== -1) process.exitCode = code;
  },
  (err) => {
    if (err instanceof ConfigError) console.error(err.message);
    else if ((err as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
      const command = process.argv.slice(2).find((a) => !a.startsWith('-'));
      process.exitCode = usageError((err as Error).message, command && isCommand(command) ? command : undefined);
      return;
    } else console.error(`formcast: ${(err as Error).message}`);
    process.exitCode = 1;
  },
);
