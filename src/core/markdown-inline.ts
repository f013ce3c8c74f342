// One line of Sightline's Markdown, parsed into inline elements: code spans, bold, italics,
// citations (`[obs_…]`, `[proc_…]`, `[net_…]`) and text. The web UI renders what this returns, and
// the summary check validates the citations it finds, so what the check lets through is exactly
// what the UI links: one parser, never two readings of the same text.
//
// Code spans follow CommonMark: a run of backticks opens one that the next run of exactly as many
// backticks closes (one space is trimmed from each end when both ends have one); a run with no
// such closer is literal text. Code spans bind tighter than anything else, so `**`**[obs_x]`` is
// two literal asterisks and a code span, and what a code span holds (quoted log text) is never a
// citation. Bold and italics are the subset the texts use (`**…**`, `*…*`, `_…_` within a line);
// backslashes are literal, since the texts quote Windows paths.

export type Inline =
  | { kind: 'text'; text: string }
  | { kind: 'code'; text: string }
  | { kind: 'citation'; id: string }
  | { kind: 'strong' | 'em'; children: Inline[] };

/** A citation's id: an observation, or an evidence row (a process event, a connection). */
export const CITATION_ID = /(?:obs_[A-Za-z0-9]{1,40}|(?:proc|net)_[0-9]{1,15})/;

interface CodeSpan {
  start: number;
  end: number;
  text: string;
}

/** The code spans of a line, in order, by CommonMark's rule for backtick strings. */
function codeSpans(line: string): CodeSpan[] {
  const runs = [...line.matchAll(/`+/g)].map((match) => ({ start: match.index, length: match[0].length }));
  // For each length, the indexes of the runs that long, and how far openers have looked: linear
  // in the line however many unmatched runs it has.
  const byLength = new Map<number, number[]>();
  runs.forEach((run, index) => {
    const same = byLength.get(run.length);
    if (same) same.push(index);
    else byLength.set(run.length, [index]);
  });
  const looked = new Map<number, number>();
  const spans: CodeSpan[] = [];
  for (let index = 0; index < runs.length; index++) {
    const open = runs[index];
    const same = open && byLength.get(open.length);
    if (!open || !same) continue;
    let next = looked.get(open.length) ?? 0;
    while (next < same.length && (same[next] ?? Infinity) <= index) next++;
    looked.set(open.length, next);
    const closeIndex = same[next];
    const close = closeIndex === undefined ? undefined : runs[closeIndex];
    if (closeIndex === undefined || !close) continue;
    let text = line.slice(open.start + open.length, close.start);
    if (text.length >= 2 && text.startsWith(' ') && text.endsWith(' ') && text.trim() !== '') text = text.slice(1, -1);
    spans.push({ start: open.start, end: close.start + close.length, text });
    index = closeIndex;
  }
  return spans;
}

const citationPattern = `\\[(${CITATION_ID.source})\\]`;

/**
 * Bold, a citation, or italics, in a line whose code spans are one placeholder character each
 * (never a word character, an asterisk or an underscore, so they do not change what matches).
 */
const INLINE = new RegExp(
  `(\\*\\*[^*\\n]+\\*\\*)|${citationPattern}|((?<![\\w])_[^_\\n]+_(?![\\w]))|((?<![\\w*])\\*[^*\\n]+\\*(?![\\w*]))`,
  'g',
);

/** A character the line does not hold, to stand for its code spans. */
function placeholderFor(line: string): string {
  for (let code = 0xe000; ; code++) {
    const candidate = String.fromCharCode(code);
    if (!line.includes(candidate)) return candidate;
  }
}

export function parseInline(line: string): Inline[] {
  const spans = codeSpans(line);
  if (spans.length === 0) return parseMasked(line, '', new Map(), 0);
  const mark = placeholderFor(line);
  const codeAt = new Map<number, string>();
  let masked = '';
  let at = 0;
  for (const span of spans) {
    masked += line.slice(at, span.start);
    codeAt.set(masked.length, span.text);
    masked += mark;
    at = span.end;
  }
  masked += line.slice(at);
  return parseMasked(masked, mark, codeAt, 0);
}

/** `text` starts at `offset` of the masked line; `codeAt` maps a placeholder's offset to its code. */
function parseMasked(text: string, mark: string, codeAt: ReadonlyMap<number, string>, offset: number): Inline[] {
  const parts: Inline[] = [];
  const plain = (from: number, to: number) => {
    let start = from;
    for (let i = from; i < to; i++) {
      const code = mark === '' ? undefined : codeAt.get(offset + i);
      if (code === undefined) continue;
      if (i > start) parts.push({ kind: 'text', text: text.slice(start, i) });
      parts.push({ kind: 'code', text: code });
      start = i + 1;
    }
    if (to > start) parts.push({ kind: 'text', text: text.slice(start, to) });
  };
  let at = 0;
  for (const match of text.matchAll(INLINE)) {
    const index = match.index;
    plain(at, index);
    const token = match[0];
    if (match[1]) {
      parts.push({ kind: 'strong', children: parseMasked(token.slice(2, -2), mark, codeAt, offset + index + 2) });
    } else if (match[2]) {
      parts.push({ kind: 'citation', id: match[2] });
    } else {
      parts.push({ kind: 'em', children: parseMasked(token.slice(1, -1), mark, codeAt, offset + index + 1) });
    }
    at = index + token.length;
  }
  plain(at, text.length);
  return parts;
}

/** The ids a text cites, in order: every citation the UI shows as one, line by line. */
export function citationsIn(text: string): string[] {
  const ids: string[] = [];
  const walk = (parts: Inline[]) => {
    for (const part of parts) {
      if (part.kind === 'citation') ids.push(part.id);
      else if (part.kind === 'strong' || part.kind === 'em') walk(part.children);
    }
  };
  for (const line of text.split(/\r\n?|\n/)) walk(parseInline(line));
  return ids;
}
