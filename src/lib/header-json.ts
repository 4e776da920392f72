/**
 * A list of strings as a JSON array fit for an HTTP header: non-ASCII escaped as \uXXXX (header values
 * are bytes, and Node refuses characters above U+00FF), and at most `maxChars` long: entries that do not
 * fit are dropped and counted in a last entry.
 */
export function headerJsonList(items: readonly string[], maxChars = 4096): string {
  const esc = (s: string) =>
    JSON.stringify(s).replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  const parts: string[] = [];
  let length = 2;
  for (let i = 0; i < items.length; i++) {
    const part = esc(items[i]);
    const more = esc(`… and ${items.length - i} more`);
    if (length + part.length + 1 + (i < items.length - 1 ? more.length + 1 : 0) > maxChars) {
      parts.push(more);
      break;
    }
    parts.push(part);
    length += part.length + 1;
  }
  return `[${parts.join(',')}]`;
}
