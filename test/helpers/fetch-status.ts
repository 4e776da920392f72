/**
 * The status of a GET of `url`, its body read to the end: an unread download keeps its connection busy, and
 * the server's close() waits for it.
 */
export async function fetchStatus(url: string | URL): Promise<number> {
  const res = await fetch(url);
  await res.arrayBuffer();
  return res.status;
}
