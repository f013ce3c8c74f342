// The fewest characters (UTF-16 code units) any match of a `|re` value can have, so that a text
// shorter than that is not handed to the regex engine at all: `CommandLine|re: '.{1000,}'` is
// tried at every position of every command line otherwise, though none is that long. Atoms
// count one each, quantifiers by their least repeat, groups by their shortest alternative, and
// assertions (`^`, `$`, `\b`, lookarounds) nothing; an escape this reading does not know
// (`\x41`, `\u…`, `\p{…}`, a backreference) makes the answer 0, which skips nothing.
import { classEnd, closing } from './regex-literal.js';

const ONE_CHARACTER_ESCAPES = new Set(['d', 'D', 's', 'S', 'w', 'W', 'n', 'r', 't', 'f', 'v']);
const QUANTIFIER = /^\{(\d+)(?:,\d*)?\}/;

/** A length no match of the regex is shorter than; 0 when the source is not understood. */
export function regexMinLength(source: string): number {
  return Math.max(0, shortest(source, 0, source.length));
}

/** The shortest match of source[from, to): the least over its alternatives, or -1 when unknown. */
function shortest(source: string, from: number, to: number): number {
  let least = Infinity;
  let length = 0;
  let at = from;
  while (at < to) {
    const char = source.charAt(at);
    let atom: number;
    let next = at + 1;
    if (char === '|') {
      least = Math.min(least, length);
      length = 0;
      at = next;
      continue;
    } else if (char === '\\') {
      const escaped = source.charAt(at + 1);
      next = at + 2;
      if (escaped === 'b' || escaped === 'B') atom = 0;
      else if (ONE_CHARACTER_ESCAPES.has(escaped) || (escaped !== '' && !/[A-Za-z0-9]/.test(escaped))) atom = 1;
      else return -1;
    } else if (char === '(') {
      next = closing(source, at);
      if (next < 0 || next > to) return -1;
      if (/^\(\?<?[=!]/.test(source.slice(at, at + 4))) atom = 0;
      else {
        const named = /^\(\?(?::|<[A-Za-z_$][\w$]*>)/.exec(source.slice(at, at + 64));
        if (source.charAt(at + 1) === '?' && !named) return -1;
        atom = shortest(source, at + (named ? named[0].length : 1), next - 1);
        if (atom < 0) return -1;
      }
    } else if (char === '[') {
      next = classEnd(source, at);
      if (next < 0 || next > to) return -1;
      atom = 1;
    } else if (char === '^' || char === '$') atom = 0;
    else if (char === ')' || char === ']' || char === '{' || char === '}' || '*+?'.includes(char)) return -1;
    else atom = 1;
    // The quantifier after the atom: its least repeat.
    let repeat = 1;
    let quantified = true;
    const quantifier = source.charAt(next);
    if (quantifier === '*' || quantifier === '?') {
      repeat = 0;
      next++;
    } else if (quantifier === '+') next++;
    else if (quantifier === '{') {
      const found = QUANTIFIER.exec(source.slice(next, to));
      if (!found) return -1;
      repeat = Number(found[1]);
      next += found[0].length;
    } else quantified = false;
    // A lazy quantifier repeats as few times as a greedy one can.
    if (quantified && source.charAt(next) === '?') next++;
    length += atom * repeat;
    at = next;
  }
  return Math.min(least, length);
}
