import { existsSync, readdirSync } from 'node:fs';
import { usageError } from './help.js';
import { copyFile, mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { copyLiveFolder } from '../adapters/backup/copy-folder.js';
import { snapshotSqlite } from '../adapters/db/sqlite-snapshot.js';
import type { Config } from '../config.js';
import { fail } from './fail.js';

/**
 * `formcast backup OUT_DIR`: a copy of the embedded set-up (SQLite database, files folder, signing
 * key) taken while the server runs, laid out as a DATA_DIR: restoring is starting with DATA_DIR=OUT_DIR.
 * The database is copied first, then the files, so every render the copy knows of has its file unless
 * retention deleted it in between (an expired render answers as expired either way).
 */
export async function backupCommand(
  config: Config,
  out: string | undefined,
  flags: { json?: boolean },
): Promise<number> {
  if (!out) return usageError('backup needs OUT_DIR (an empty or new folder)', 'backup');
  if (config.database.kind !== 'sqlite')
    return fail(
      'formcast backup copies the embedded SQLite database; with DATABASE_URL=postgres://… back up with pg_dump (see docs/operations.md)',
    );
  const target = path.resolve(out);
  if (existsSync(target) && readdirSync(target).length > 0) return fail(`${target} is not empty: choose a new folder`);
  if (!existsSync(config.database.file)) return fail(`no database at ${config.database.file}: is DATA_DIR right?`);
  await mkdir(target, { recursive: true });

  const startedAt = new Date().toISOString();
  const database = await snapshotSqlite(config.database.file, path.join(target, 'formcast.sqlite'));
  if (database.integrity !== 'ok') return fail(`the copy of the database is not sound: ${database.integrity}`);
  // With S3 the bucket holds the files: it is backed up with the bucket's own tools (docs/operations.md).
  const files = config.s3 ? null : await copyLiveFolder(path.join(config.dataDir, 'files'), path.join(target, 'files'));
  const key = path.join(config.dataDir, 'signing.key');
  const signingKey = existsSync(key);
  if (signingKey) await copyFile(key, path.join(target, 'signing.key'));

  const summary = {
    startedAt,
    finishedAt: new Date().toISOString(),
    database: { file: 'formcast.sqlite', integrity: database.integrity, rows: database.rows },
    files: files ?? { skipped: 'files are in S3: back up the bucket' },
    signingKey: signingKey ? 'signing.key' : 'SIGNING_SECRET is set in the environment: keep it with the backup',
  };
  await writeFile(path.join(target, 'backup.json'), `${JSON.stringify(summary, null, 2)}\n`);
  if (flags.json) console.log(JSON.stringify(summary));
  else
    console.log(
      `Backed up to ${target}: database (${database.rows.renders ?? 0} renders, ${database.rows.templates ?? 0} templates)` +
        (files ? `, ${files.files} files (${files.bytes} bytes)` : ', files in S3 not copied') +
        `.\nRestore: start formcast with DATA_DIR=${target}`,
    );
  return 0;
}
