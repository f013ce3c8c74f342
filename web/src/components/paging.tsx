// Cursor pagination for every list: the API hands out `next_cursor`; going back needs the
// cursors of the pages before, kept in the address. Changing the filters starts again at page one.
import { useCallback, useEffect } from 'react';
import { useLocation, useNavigate } from 'react-router';
import { Button } from './ui';
import { formatNumber } from '../lib/format';

export interface CursorPager {
  /** The cursor of the page shown (undefined: the first page). */
  cursor: string | undefined;
  /** 0 for the first page. */
  index: number;
  next: (nextCursor: string) => void;
  previous: () => void;
  first: () => void;
}

/** Cursors are base64url with a `.`: `~` cannot occur in them, so it separates them in the URL. */
const SEPARATOR = '~';

/** A short fingerprint of the filters a page's cursors belong to (djb2, base 36). */
function fingerprint(text: string): string {
  let hash = 5381;
  for (let i = 0; i < text.length; i++) hash = ((hash * 33) ^ text.charCodeAt(i)) >>> 0;
  return hash.toString(36);
}

/** The cursors of the pages before the one shown, when the address holds some for these filters. */
function cursorsIn(search: string, name: string, key: string): string[] {
  const params = new URLSearchParams(search);
  const raw = params.get(`${name}_cursors`);
  if (!raw || params.get(`${name}_for`) !== fingerprint(key)) return [];
  return raw.split(SEPARATOR).filter((cursor) => cursor !== '');
}

/**
 * The page is part of the address: `?page=3&page_cursors=…&page_for=…` (the cursors of the pages
 * before, so Previous works after a reload or from a shared link, and the filters they belong
 * to), and each move is a history entry, so the browser's Back goes to the page before.
 * `resetKey`: anything that changes the result set (the filters); cursors of other filters are
 * ignored and dropped from the address, so a new key starts at page one. `name` keeps two lists
 * on one page apart.
 */
export function useCursorPager(resetKey: string, name = 'page'): CursorPager {
  const location = useLocation();
  const navigate = useNavigate();
  const stack = cursorsIn(location.search, name, resetKey);
  const leftover = stack.length === 0 && new URLSearchParams(location.search).has(`${name}_cursors`);

  const go = useCallback(
    (cursors: string[], replace = false) => {
      // The address as it is now, not as this render saw it: a filter change may have just moved it.
      const params = new URLSearchParams(window.location.search);
      for (const param of [name, `${name}_cursors`, `${name}_for`]) params.delete(param);
      if (cursors.length > 0) {
        params.set(name, String(cursors.length + 1));
        params.set(`${name}_cursors`, cursors.join(SEPARATOR));
        params.set(`${name}_for`, fingerprint(resetKey));
      }
      const search = params.toString();
      void navigate({ pathname: window.location.pathname, search: search ? `?${search}` : '' }, { replace });
    },
    [name, navigate, resetKey],
  );

  // Cursors of filters no longer shown: take them out of the address (page one is shown already).
  useEffect(() => {
    if (leftover) go([], true);
  }, [leftover, go]);

  const current = () => cursorsIn(window.location.search, name, resetKey);
  const next = (nextCursor: string) => go([...current(), nextCursor]);
  const previous = () => go(current().slice(0, -1));
  const first = () => go([]);
  return { cursor: stack[stack.length - 1], index: stack.length, next, previous, first };
}

export function Pager({
  pager,
  nextCursor,
  shown,
  pageSize,
  total,
  totalRelation,
}: {
  pager: CursorPager;
  nextCursor: string | null | undefined;
  /** Items on this page. */
  shown: number;
  pageSize: number;
  total?: number | null | undefined;
  /** "gte": total is a lower bound (the server stopped counting). */
  totalRelation?: 'eq' | 'gte' | undefined;
}) {
  // Nothing on the first page: the list's empty state says so; no pages to move through.
  if (shown === 0 && pager.index === 0 && !nextCursor) return null;
  const from = shown === 0 ? 0 : pager.index * pageSize + 1;
  const to = pager.index * pageSize + shown;
  return (
    <nav className="pager" aria-label="Pages">
      <span className="pager-range">
        {shown === 0 ? 'No items' : `${formatNumber(from)}–${formatNumber(to)}`}
        {total !== undefined &&
          total !== null &&
          ` of ${totalRelation === 'gte' ? 'at least ' : ''}${formatNumber(total)}`}
      </span>
      <Button small disabled={pager.index === 0} onClick={pager.first} aria-label="First page">
        «
      </Button>
      <Button small disabled={pager.index === 0} onClick={pager.previous}>
        Previous
      </Button>
      <Button small disabled={!nextCursor} onClick={() => nextCursor && pager.next(nextCursor)}>
        Next
      </Button>
    </nav>
  );
}
