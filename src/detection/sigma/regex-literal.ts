// What a `|re` value requires of the text, for the literal pre-filter: for each top-level
// alternative, its longest run of ASCII characters that every match must contain. Only plain
// characters (and escaped punctuation) outside groups, classes and quantified atoms count;
// anything this reading does not understand gives no literal, which leaves the rule evaluated on
// every event as before. An ASCII run in the text stays a run, lower-cased, in the folded text the
// pre-filter scans, so a regex (with or without the i flag) can only match where the run is found.

const SIMPLE_CLASSES = new Set(['d', 'D', 's', 'S', 'w', 'W', 'b', 'B', 'n', 'r', 't', 'f', 'v', '0']);
const QUANTIFIER = /^\{\d+(?:,\d*)?\}/;

/** The literals a regex requires, one per top-level alternative; null when some alternative has none. */
export function regexLiterals(source: string): string[] | null {
  const alternatives: string[] = [];
  let best = '';
  let run = '';
  const endRun = () => {
    if (run.length > best.length) best = run;
    run = '';
  };
  const quantifierAt = (at: number): number => {
    const char = source[at];
    if (char === '*' || char === '+' || char === '?') return source[at + 1] === '?' ? 2 : 1;
    if (char === '{') {
      const found = QUANTIFIER.exec(source.slice(at));
      if (found) return found[0].length + (source[at + found[0].length] === '?' ? 1 : 0);
    }
    return 0;
  };
  let at = 0;
  while (at < source.length) {
    const char = source.charAt(at);
    let literal: string | null = null;
    let next = at + 1;
    if (char === '\\') {
      const escaped = source.charAt(at + 1);
      if (escaped === '') return null;
      next = at + 2;
      if (/[A-Za-z0-9]/.test(escaped)) {
        // \x, \u, \c, \k, \p and backreferences take more characters: not read here.
        if (!SIMPLE_CLASSES.has(escaped)) return null;
      } else literal = escaped;
    } else if (char === '(') {
      next = closing(source, at);
      if (next < 0) return null;
    } else if (char === '[') {
      next = classEnd(source, at);
      if (next < 0) return null;
    } else if (char === '|') {
      endRun();
      if (best === '') return null;
      alternatives.push(best);
      best = '';
      at = next;
      continue;
    } else if (char === ')' || char === ']' || char === '}' || quantifierAt(at) > 0) {
      // Stray closers and quantifiers where no atom precedes them: not read here.
      return null;
    } else if (char !== '.' && char !== '^' && char !== '$') literal = char;
    const quantifier = quantifierAt(next);
    if (literal === null || quantifier > 0 || literal.charCodeAt(0) > 127) endRun();
    else run += literal.toLowerCase();
    at = next + quantifier;
  }
  endRun();
  if (best === '') return null;
  alternatives.push(best);
  return alternatives;
}

/** The index after the group opened at `open`, or -1 when it does not close. */
export function closing(source: string, open: number): number {
  let depth = 0;
  for (let at = open; at < source.length; at++) {
    const char = source[at];
    if (char === '\\') at++;
    else if (char === '[') {
      const end = classEnd(source, at);
      if (end < 0) return -1;
      at = end - 1;
    } else if (char === '(') depth++;
    else if (char === ')' && --depth === 0) return at + 1;
  }
  return -1;
}

/** The index after the character class opened at `open` (JavaScript: the first unescaped `]`). */
export function classEnd(source: string, open: number): number {
  for (let at = open + 1; at < source.length; at++) {
    if (source[at] === '\\') at++;
    else if (source[at] === ']') return at + 1;
  }
  return -1;
}
