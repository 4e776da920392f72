// The CLI's help: the overview (`formcast --help`) and one page per command (`formcast help COMMAND`,
// `formcast COMMAND --help`). Usage errors exit 2, failures 1, as conventional CLIs do.

const COMMANDS = {
  serve: `formcast serve
  Start the HTTP API. Configuration comes from the environment (README.md: PORT, HOST, DATA_DIR,
  DATABASE_URL, PUBLIC_URL, PLANS_FILE, LOG_LEVEL, S3_*, REDIS_URL, OTEL_*...). Stops cleanly on SIGTERM/SIGINT.`,
  accounts: `formcast accounts create --name N --plan P [--json]   create an account and its first API key
formcast accounts set-plan --account ID --plan P
formcast accounts list [--json]
  Plans: Free, Pro, Business (or those of PLANS_FILE). Uses the database of DATA_DIR / DATABASE_URL.`,
  keys: `formcast keys create --account ID [--name N] [--json]
formcast keys list --account ID [--json]
formcast keys revoke --account ID --key KEY_ID
  The API keys of an account, in the database of DATA_DIR / DATABASE_URL.`,
  render: `formcast render TEMPLATE.pdf DATA.json -o OUT.pdf [--no-flatten] [--watermark] [--locale L] [--timezone TZ]
                [--strict] [--no-calculate] [--sign CERT.p12 [--sign-password PW] [--tsa URL]]
  Fill a PDF offline with the same engine as the server (no server, no database).
  --no-calculate: the form's scripts do not run, data fills its computed fields.
  --sign: sign the output (PAdES) with the PKCS#12's key (RSA or EC), visibly in the form's signature
  field when it has an empty one; the password from --sign-password or FORMCAST_SIGN_PASSWORD;
  --tsa: an RFC 3161 time-stamp authority (PAdES B-T).`,
  batch: `formcast batch TEMPLATE.pdf DATA.jsonl|DATA.csv -o OUT_DIR [--combine OUT.pdf] [--workers N] [--json]
               [--no-flatten] [--no-calculate] [--watermark] [--locale L] [--timezone TZ] [--strict]
               [--sign CERT.p12 [--sign-password PW] [--tsa URL]]
  One PDF per row (0001.pdf, ...) offline; progress on stderr. A row that cannot be read or rendered is
  reported with its line number and the others go on; the exit code is 1 when any row failed.
  --sign: sign every row's PDF as render --sign does, and the --combine file once as a whole (the rows'
  own signatures are left out of it); the password from --sign-password or FORMCAST_SIGN_PASSWORD;
  --tsa: an RFC 3161 time-stamp authority for every signature (PAdES B-T).`,
  backup: `formcast backup OUT_DIR [--json]
  Copy the embedded set-up (SQLite, files, signing key) while it runs; restore by starting with
  DATA_DIR=OUT_DIR. OUT_DIR must be new or empty.`,
  openapi: `formcast openapi [-o openapi.json] [--server URL]
  Print (or write) the OpenAPI document; needs no database and no server.`,
  types: `formcast types TEMPLATE_ID|TEMPLATE.pdf [-o FILE.ts] [--check] [--name Interface] [--url URL] [--api-key KEY]
  TypeScript types of a template's render data, for @formcast/client's renders.create<T>. A .pdf is
  analysed offline; an id is read from FORMCAST_URL (or --url) with FORMCAST_API_KEY (or --api-key).
  --check exits 1 when FILE.ts no longer matches the template (its header's file name aside).`,
  help: `formcast help [COMMAND]
  This overview, or the help of one command (also: formcast COMMAND --help).`,
} as const;

export type CommandName = keyof typeof COMMANDS;

export const OVERVIEW = `formcast — PDF form rendering service

Usage: formcast COMMAND [options]      formcast help COMMAND      formcast --version

${Object.values(COMMANDS)
  .map((text) => text.split('\n')[0])
  .join('\n')}

Plans: Free, Pro, Business. Environment: see README.md. Exit codes: 0 done, 1 failed, 2 usage error.`;

export function isCommand(name: string): name is CommandName {
  return Object.hasOwn(COMMANDS, name);
}

export function commandHelp(name: CommandName): string {
  return `usage: ${COMMANDS[name]}`;
}

/** A usage error: the message and how to get help, exit code 2. */
export function usageError(message: string, command?: CommandName): number {
  const hint = command ? `formcast help ${command}` : 'formcast --help';
  console.error(`formcast: ${message}\n(see ${hint})`);
  return 2;
}
