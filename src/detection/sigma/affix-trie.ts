// Which of one field's required literals a text starts with (or ends with): a trie of the
// literals, walked from the text's first character forwards (or its last backwards) for as long
// as some literal continues. `|endswith: '\cmd.exe'` and `|startswith: 'C:\Windows\'` are
// found in the dozen characters at the text's edge, however long the text and however many
// literals share the field.
import type { Candidates } from './candidates.js';

const NONE = -1;

export class AffixTrie {
  /** Per node, its children by character code (absent: a leaf). Node 0 is the root. */
  private readonly children: (Map<number, number> | undefined)[] = [undefined];
  /** Per node, the marks of the literals ending there. */
  private readonly marks: (number[] | undefined)[] = [undefined];

  /** `fromEnd`: literals the text must end with, walked from its last character. */
  constructor(private readonly fromEnd: boolean) {}

  get empty(): boolean {
    return this.children[0] === undefined;
  }

  add(literal: string, mark: number): void {
    if (literal === '') throw new Error('affix trie: the empty literal is found everywhere, not at an edge');
    let node = 0;
    for (let step = 0; step < literal.length; step++) {
      const code = literal.charCodeAt(this.fromEnd ? literal.length - 1 - step : step);
      let next = this.children[node]?.get(code);
      if (next === undefined) {
        next = this.marks.length;
        this.marks.push(undefined);
        this.children.push(undefined);
        let map = this.children[node];
        if (map === undefined) {
          map = new Map();
          this.children[node] = map;
        }
        map.set(code, next);
      }
      node = next;
    }
    const marks = this.marks[node];
    if (marks === undefined) this.marks[node] = [mark];
    else if (!marks.includes(mark)) marks.push(mark);
  }

  /** Marks every literal the text starts with (or ends with). */
  scan(text: string, candidates: Candidates): void {
    const { children, marks, fromEnd } = this;
    const length = text.length;
    let node = 0;
    for (let step = 0; step < length; step++) {
      const next = children[node]?.get(text.charCodeAt(fromEnd ? length - 1 - step : step)) ?? NONE;
      if (next === NONE) return;
      node = next;
      const found = marks[node];
      if (found !== undefined) candidates.mark(found);
    }
  }
}
