import { plural } from '../format.js';

/**
 * Previous and next over a list the API pages (`meta.total` items, `limit` a page): nothing when one page
 * holds them all. With `noun` it also counts the items ("Page 1 of 3 (45 renders)").
 */
export function Pager({
  page,
  limit,
  total,
  onPage,
  noun,
  label = 'Pages',
  previous = 'Previous',
  next = 'Next',
}: {
  /** the page shown, from 1 */
  page: number;
  limit: number;
  total: number;
  onPage: (page: number) => void;
  noun?: string;
  /** the navigation's accessible name: say which list when a page has several */
  label?: string;
  /** the buttons' words, e.g. Newer / Older for a log */
  previous?: string;
  next?: string;
}) {
  const pages = Math.ceil(total / limit);
  if (pages <= 1) return null;
  return (
    <nav class="pager" aria-label={label}>
      <button type="button" disabled={page <= 1} onClick={() => onPage(page - 1)}>
        {previous}
      </button>
      <span>
        Page {page} of {pages}
        {noun && <> ({plural(total, noun)})</>}
      </span>
      <button type="button" disabled={page >= pages} onClick={() => onPage(page + 1)}>
        {next}
      </button>
    </nav>
  );
}
