/**
 * RFC 6266 attachment with an ASCII fallback and the UTF-8 name (RFC 8187: `'()*` percent-encoded too),
 * used by our own downloads and by S3 pre-signed URLs alike.
 */
export function attachmentDisposition(fileName: string): string {
  const ascii = fileName.replace(/[^\x20-\x7e]/g, '_').replace(/["\\]/g, '_');
  const utf8 = encodeURIComponent(fileName).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `attachment; filename="${ascii}"; filename*=UTF-8''${utf8}`;
}
