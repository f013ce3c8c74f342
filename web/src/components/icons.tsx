// Small line icons drawn as SVG, so that they render the same everywhere: a glyph from a font
// (an emoji, ☰, ↗) shows as an empty box where that font is missing. Decorative by default
// (aria-hidden); the control that holds one carries the accessible name.
import type { ReactNode } from 'react';

function Svg({ children, size = 16, title }: { children: ReactNode; size?: number; title?: string }) {
  return (
    <svg
      className="icon"
      width={size}
      height={size}
      viewBox="0 0 24 24"
      fill="none"
      stroke="currentColor"
      strokeWidth={2}
      strokeLinecap="round"
      strokeLinejoin="round"
      {...(title ? { role: 'img', 'aria-label': title } : { 'aria-hidden': true, focusable: false })}
    >
      {children}
    </svg>
  );
}

export function MenuIcon(props: { size?: number; title?: string }) {
  return (
    <Svg {...props}>
      <path d="M4 6h16M4 12h16M4 18h16" />
    </Svg>
  );
}

export function ExternalLinkIcon(props: { size?: number; title?: string }) {
  return (
    <Svg {...props} size={props.size ?? 14}>
      <path d="M14 4h6v6M20 4l-9 9M18 14v5a1 1 0 0 1-1 1H5a1 1 0 0 1-1-1V7a1 1 0 0 1 1-1h5" />
    </Svg>
  );
}

export function ThumbUpIcon(props: { size?: number; title?: string }) {
  return (
    <Svg {...props}>
      <path d="M7 10v10H4V10h3zM7 10l4-7a2 2 0 0 1 3 2l-1 5h6a2 2 0 0 1 2 2.3l-1.4 6A2 2 0 0 1 17.6 20H7" />
    </Svg>
  );
}

export function ThumbDownIcon(props: { size?: number; title?: string }) {
  return (
    <Svg {...props}>
      <path d="M17 14V4h3v10h-3zM17 14l-4 7a2 2 0 0 1-3-2l1-5H5a2 2 0 0 1-2-2.3l1.4-6A2 2 0 0 1 6.4 4H17" />
    </Svg>
  );
}
