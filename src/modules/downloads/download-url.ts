import type { Deps } from '../../deps.js';
import { signedDownloadUrl } from './signing.js';

/** A fresh download URL for a stored render file: the blob store's own pre-signed URL, else ours. */
export async function downloadUrlFor(
  deps: Pick<Deps, 'blobs' | 'config' | 'signingKey' | 'clock'>,
  render: { id: string; blob_key: string | null; template_name: string },
): Promise<string | null> {
  if (!render.blob_key) return null;
  const seconds = deps.config.limits.downloadUrlSeconds;
  const native = await deps.blobs.presignedUrl(
    render.blob_key,
    seconds,
    downloadFileName(render.template_name, render.id),
  );
  if (native) return native;
  const expires = Math.floor(deps.clock.now().getTime() / 1000) + seconds;
  return signedDownloadUrl(deps.config.publicUrl, deps.signingKey, render.id, expires);
}

/** "<template name>-<render id>.pdf", with characters unsafe in file names replaced. */
export function downloadFileName(templateName: string, renderId: string): string {
  const base =
    templateName
      .replace(/\.pdf$/i, '')
      .replace(/[\\/:*?"<>|\u0000-\u001f]+/g, '_')
      .slice(0, 100) || 'render';
  return `${base}-${renderId}.pdf`;
}
