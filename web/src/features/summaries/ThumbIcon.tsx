// Thumbs up / down as inline SVG: emoji render as empty boxes where no emoji font is installed.
// The path is one thumb; "down" is the same shape turned over. Decorative: the button is labelled.
export function ThumbIcon({ direction }: { direction: 'up' | 'down' }) {
  return (
    <svg
      className="thumb-icon"
      data-direction={direction}
      width="16"
      height="16"
      viewBox="0 0 24 24"
      fill="none"
      stroke="currentColor"
      strokeWidth="2"
      strokeLinecap="round"
      strokeLinejoin="round"
      aria-hidden="true"
      focusable="false"
      style={direction === 'down' ? { transform: 'rotate(180deg)' } : undefined}
    >
      <path d="M7 10v11" />
      <path d="M15 5.9 14 10h5.8a2 2 0 0 1 2 2.4l-1.4 7A2 2 0 0 1 18.4 21H4a1 1 0 0 1-1-1v-9a1 1 0 0 1 1-1h2.8a2 2 0 0 0 1.8-1.1L12 2a3.1 3.1 0 0 1 3 3.9Z" />
    </svg>
  );
}
