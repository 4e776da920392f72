import type { Deps } from '../../deps.js';
import { sha256Of } from './seal-output.js';
import { findRendersBySha256 } from './render-records.js';
import { toListItem } from './render-view.js';

// POST /renders/verify: is this file one this account's renders made? By the SHA-256 every completed
// render records. A file whose first bytes are a render's file up to one of its %%EOF markers is that
// render with revisions added after it (an incremental save, a later signature): "modified". Nothing
// is charged.

export type VerifyResult = 'verified' | 'modified' | 'unknown';

const EOF_MARK = Buffer.from('%%EOF');

/** The file's prefixes that end a revision: each `%%EOF` and its end-of-line, the whole file excluded. */
function revisionEnds(bytes: Buffer): number[] {
  const ends: number[] = [];
  for (let i = bytes.indexOf(EOF_MARK); i !== -1; i = bytes.indexOf(EOF_MARK, i + EOF_MARK.length)) {
    let end = i + EOF_MARK.length;
    if (bytes[end] === 0x0d) end++;
    if (bytes[end] === 0x0a) end++;
    if (end < bytes.length) ends.push(end);
  }
  return ends;
}

/** At most this many earlier revisions are looked up (a hostile file may hold thousands of markers). */
const MAX_REVISIONS = 20;

export async function verifyRenderFile(
  deps: Pick<Deps, 'db' | 'blobs' | 'config' | 'signingKey' | 'clock'>,
  accountId: string,
  bytes: Buffer,
) {
  const sha256 = sha256Of([bytes]);
  const exact = await findRendersBySha256(deps.db, accountId, sha256);
  if (exact.length > 0) return answer(deps, 'verified', sha256, exact[0]);
  for (const end of revisionEnds(bytes).reverse().slice(0, MAX_REVISIONS)) {
    const earlier = await findRendersBySha256(deps.db, accountId, sha256Of([bytes.subarray(0, end)]));
    if (earlier.length > 0) return answer(deps, 'modified', sha256, earlier[0]);
  }
  return answer(deps, 'unknown', sha256, undefined);
}

const MESSAGES: Record<VerifyResult, string> = {
  verified: 'This file is exactly the file of this render.',
  modified: 'This file begins with the file of this render, and was changed after it: revisions were added.',
  unknown: 'This file was not made by a render of this account, or it was changed since.',
};

async function answer(
  deps: Pick<Deps, 'blobs' | 'config' | 'signingKey' | 'clock'>,
  result: VerifyResult,
  sha256: string,
  row: Parameters<typeof toListItem>[1] | undefined,
) {
  const visible = row && row.deleted_at === null && row.expires_at > deps.clock.now().toISOString();
  const render = row
    ? visible
      ? await toListItem(deps, row)
      : { ...(await toListItem(deps, row)), downloadUrl: null }
    : null;
  return { result, sha256, message: MESSAGES[result], render };
}
