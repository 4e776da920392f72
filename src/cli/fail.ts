// How every CLI command reports a failure. A module of its own: importing it from accounts.ts (a bundle
// with the database code inlined) made `formcast render` load Kysely.
export function fail(message: string): number {
  console.error(`formcast: ${message}`);
  return 1;
}

/** A failure a command reports in its own words (exit 1), not a crash. */
export class CliError extends Error {}
