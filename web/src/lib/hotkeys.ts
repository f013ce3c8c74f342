// Keyboard shortcuts: single keys (`/`, `j`, `k`) and two-key sequences (`g c`). Keys typed into
// a field never trigger one, except Escape; Enter and space on a focused control act on it.
import { useEffect, useEffectEvent } from 'react';

export type HotkeyMap = Record<string, (event: KeyboardEvent) => void>;

const SEQUENCE_MS = 1_000;

function typingIn(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  return target.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(target.tagName);
}

/** Enter or space on a focused link, button, tab or other control keeps its own meaning (following the link, pressing the button). */
function activatesControl(event: KeyboardEvent): boolean {
  if (event.key !== 'Enter' && event.key !== ' ') return false;
  return (
    event.target instanceof Element &&
    event.target.closest('a[href], button, summary, [role="button"], [role="tab"], [role="switch"], [role="link"]') !==
      null
  );
}

// One listener for every bound map, so a two-key sequence (`g c`) always wins over a page's
// single key (`c`), whichever component bound its keys first. Newer maps win on equal keys.
const layers: { bindings: () => HotkeyMap }[] = [];
let pending = '';
let pendingAt = 0;

function onKey(event: KeyboardEvent): void {
  if (event.defaultPrevented || event.ctrlKey || event.metaKey || event.altKey) return;
  if (event.key !== 'Escape' && typingIn(event.target)) return;
  if (activatesControl(event)) return;
  if (document.querySelector('dialog[open]') && event.key !== 'Escape') return;
  const key = event.key;
  const sequence = pending && Date.now() - pendingAt < SEQUENCE_MS ? `${pending} ${key}` : '';
  const maps = layers.map((layer) => layer.bindings());
  const find = (name: string) => maps.findLast((map) => map[name])?.[name];
  const startsSequence = maps.some((map) => Object.keys(map).some((name) => name.startsWith(`${key} `)));
  const handler = (sequence ? find(sequence) : undefined) ?? (startsSequence ? undefined : find(key));
  if (handler) {
    pending = '';
    event.preventDefault();
    handler(event);
    return;
  }
  pending = startsSequence ? key : '';
  pendingAt = Date.now();
}

/** Binds the shortcuts while the component is mounted; the newest handlers always run. */
export function useHotkeys(bindings: HotkeyMap, enabled = true): void {
  // Read at each key press (an Effect Event), so the newest handlers run without binding again.
  const current = useEffectEvent(() => bindings);
  useEffect(() => {
    if (!enabled) return undefined;
    const layer = { bindings: () => current() };
    if (layers.length === 0) window.addEventListener('keydown', onKey);
    layers.push(layer);
    return () => {
      layers.splice(layers.indexOf(layer), 1);
      if (layers.length === 0) window.removeEventListener('keydown', onKey);
    };
  }, [enabled]);
}

/** The shortcuts every page has, listed in the help dialog (`?`). */
export const globalShortcuts: [string, string][] = [
  ['g o', 'Go to the overview'],
  ['g c', 'Go to cases'],
  ['g b', 'Go to observations'],
  ['g d', 'Go to devices'],
  ['g t', 'Go to telemetry'],
  ['g s', 'Go to settings'],
  ['/', 'Focus the search or filter box'],
  ['j / k', 'Next / previous row in a list'],
  ['Enter', 'Open the selected row'],
  ['?', 'Show these shortcuts'],
  ['Esc', 'Close a dialog'],
];
