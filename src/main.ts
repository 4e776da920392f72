import { parseArgs } from 'node:util';
import { ConfigError, loadConfig } from './config.js';

const USAGE = `formcast — PDF form rendering service

Usage:
  formcast serve                                   start the HTTP API (configuration from the environment)
  formcast accounts create --name N --plan P [--json]   create an account and its first API key
  formcast accounts set-plan --account ID --plan P
  formcast accounts list [--json]
  formcast keys create --account ID [--name N] [--json]
  formcast keys list --account ID [--json]
  formcast keys revoke --account ID --key KEY_ID
  formcast render TEMPLATE.pdf DATA.json -o OUT.pdf [--no-flatten] [--watermark] [--locale L] [--timezone TZ] [--strict]
                 [--no-calculate]                  fill a PDF offline with the same engine (no server, no database);
                                                   --no-calculate: the form's scripts do not run, data fills its
                                                   computed fields
  formcast backup OUT_DIR [--json]                  copy the embedded set-up (SQLite, files, signing key) while it
                                                   runs; restore by starting with DATA_DIR=OUT_DIR
  formcast openapi [-o openapi.json] [--server URL]  print the OpenAPI document (no database, no server)
  formcast types TEMPLATE_ID|TEMPLATE.pdf [-o FILE.ts] [--check] [--name Interface] [--url URL] [--api-key KEY]
                                                   TypeScript types of a template's render data (a .pdf is analysed
                                                   offline; an id is read from FORMCAST_URL with FORMCAST_API_KEY);
                                                   --check exits 1 when FILE.ts no longer matches the template
  formcast batch TEMPLATE.pdf DATA.jsonl|DATA.csv -o OUT_DIR [--combine OUT.pdf] [--workers N] [--json]
                 [--no-flatten] [--no-calculate] [--watermark] [--locale L] [--timezone TZ] [--strict]
                                                   one PDF per row (0001.pdf, ...) offline; progress on stderr
Plans: Free, Pro, Business. Environment: see README.md (PORT, HOST, DATA_DIR, DATABASE_URL, PUBLIC_URL, PLANS_FILE, LOG_LEVEL).`;

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
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  const [command, sub, ...rest] = positionals;
  if (values.help || !command) {
    console.log(USAGE);
    return command || values.help ? 0 : 1;
  }
  // Commands are loaded on demand so that `accounts` and `keys` do not pay for the PDF engine's start-up.
  if (command === 'render')
    return (await import('./cli/render.js')).renderCommand([sub, ...rest].filter(Boolean) as string[], values);
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
      console.error(`Unknown command "${command}".\n\n${USAGE}`);
      return 1;
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    if (code !== -1) process.exitCode = code;
  },
  (err) => {
    if (err instanceof ConfigError) console.error(err.message);
    else if ((err as { code?: string }).code?.startsWith('ERR_PARSE_ARGS'))
      console.error(`${(err as Error).message}\n\n${USAGE}`);
    else console.error(`formcast: ${(err as Error).message}`);
    process.exitCode = 1;
  },
);
