// Cursor pagination for every list: the API hands out `next_cursor`; going back needs the
// cursors of the pages before, kept here. Changing the filters starts again at page one.
import { useCallback, useState } from 'react';
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

/** `resetKey`: anything that changes the result set (the filters); a new key goes back to page one. */
export function useCursorPager(resetKey: string): CursorPager {
  const [paged, setPaged] = useState<{ key: string; stack: string[] }>({ key: resetKey, stack: [] });
  let stack = paged.stack;
  if (paged.key !== resetKey) {
    // Adjusting state while rendering (React's pattern for "reset when a prop changes"): the first
    // render with the new filters already asks for page one.
    stack = [];
    setPaged({ key: resetKey, stack });
  }
  const next = useCallback(
    (nextCursor: string) => setPaged((p) => ({ key: p.key, stack: [...p.stack, nextCursor] })),
    [],
  );
  const previous = useCallback(() => setPaged((p) => ({ key: p.key, stack: p.stack.slice(0, -1) })), []);
  const first = useCallback(() => setPaged((p) => ({ key: p.key, stack: [] })), []);
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
