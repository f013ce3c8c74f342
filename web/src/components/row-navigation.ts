// j / k move through a list's rows, Enter opens the selected one: lists work without a mouse.
import { useEffect, useState, type Dispatch, type SetStateAction } from 'react';
import { useHotkeys } from '../lib/hotkeys';

/**
 * Moving through rows takes the keyboard from the control last clicked or tabbed to (a filter
 * toggle, a link): Enter then opens the row, where it would otherwise press that control again.
 */
function leaveControl(): void {
  if (document.activeElement instanceof HTMLElement && document.activeElement !== document.body)
    document.activeElement.blur();
}

export function useRowNavigation(
  count: number,
  open: (index: number) => void,
): { selected: number; setSelected: Dispatch<SetStateAction<number>> } {
  const [chosen, setSelected] = useState(-1);
  // Fewer rows than before (a new page, a filter): the selection moves up to the last row, adjusted
  // while rendering so no render shows it past the end.
  const selected = Math.min(chosen, count - 1);
  if (selected !== chosen) setSelected(selected);
  useHotkeys({
    j: () => {
      leaveControl();
      setSelected((s) => Math.min(count - 1, s + 1));
    },
    k: () => {
      leaveControl();
      setSelected((s) => Math.max(0, s - 1));
    },
    Enter: () => {
      if (selected >= 0 && selected < count) open(selected);
    },
  });
  useEffect(() => {
    if (selected < 0) return;
    document.querySelector(`[data-row-index="${selected}"]`)?.scrollIntoView({ block: 'nearest' });
  }, [selected]);
  return { selected, setSelected };
}

/** The keys useRowNavigation binds, as the KeyHints under a list name them. */
export const rowKeys: [string, string][] = [
  ['j k', 'move'],
  ['Enter', 'opens'],
];
