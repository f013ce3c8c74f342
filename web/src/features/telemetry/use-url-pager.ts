// The telemetry pages' cursors in the URL (`c`: the next_cursor of every page before this one,
// comma-separated), so a page is a link and survives a reload; Previous drops the last one.
import { useCallback, useMemo } from 'react';
import type { CursorPager } from '../../components/paging';

export function useUrlPager(stackText: string | undefined, set: (stack: string) => void): CursorPager {
  // Cursors are base64url: never a comma.
  const stack = useMemo(() => (stackText ? stackText.split(',').filter(Boolean) : []), [stackText]);
  const next = useCallback((cursor: string) => set([...stack, cursor].join(',')), [stack, set]);
  const previous = useCallback(() => set(stack.slice(0, -1).join(',')), [stack, set]);
  const first = useCallback(() => set(''), [set]);
  return { cursor: stack.at(-1), index: stack.length, next, previous, first };
}
