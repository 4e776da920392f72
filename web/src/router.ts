import { useEffect, useState } from 'preact/hooks';

// A small History API router: every dashboard path lives under /app/ (the server answers index.html
// for all of them), so links can be bookmarked and reloaded.

export const BASE = '/app';

export function navigate(to: string, replace = false): void {
  if (replace) history.replaceState(null, '', to);
  else history.pushState(null, '', to);
  window.dispatchEvent(new Event('app:navigate'));
  window.scrollTo(0, 0);
}

/** The current path under /app, e.g. "/templates/tpl_123" ("/" for /app itself). */
export function usePath(): string {
  const read = () => location.pathname.slice(BASE.length) || '/';
  const [path, setPath] = useState(read);
  useEffect(() => {
    const update = () => setPath(read());
    window.addEventListener('popstate', update);
    window.addEventListener('app:navigate', update);
    return () => {
      window.removeEventListener('popstate', update);
      window.removeEventListener('app:navigate', update);
    };
  }, []);
  return path;
}

/** onClick for an <a href>: navigate in the app unless the user asked for a new tab or window. */
export function linkClick(event: MouseEvent): void {
  const a = event.currentTarget as HTMLAnchorElement;
  if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
  event.preventDefault();
  navigate(a.getAttribute('href') ?? BASE);
}
