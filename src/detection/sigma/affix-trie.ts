// Which of one field's required literals a text starts with (or ends with): a trie of the
// literals, walked from the text's first character forwards (or its last backwards) for as long
// as some literal continues. `|endswith: '\cmd.exe'` and `|startswith: 'C:\Windows\'` are
// found in the dozen characters at the text's edge, however long the text and however many
// literals share the field. The trie's edges live in one open-addressing table of integers
// keyed by (node, character), so a step is a multiply, a load and a compare.
import type { Candidates } from './candidates.js';

const EMPTY = -1;

export class AffixTrie {
  /** While literals are added: per node, its children by character code. Node 0 is the root. */
  private children: Map<number, number>[] | null = [new Map()];
  /** Per node, the marks of the literals ending there (an empty list when none do). */
  private readonly marks: number[][] = [[]];
  // The edges, laid out on the first scan: per slot, the parent node (EMPTY: a free slot), the
  // character and the child node.
  private parents = new Int32Array(0);
  private codes = new Int32Array(0);
  private targets = new Int32Array(0);
  private mask = 0;

  /** `fromEnd`: literals the text must end with, walked from its last character. */
  constructor(private readonly fromEnd: boolean) {}

  get empty(): boolean {
    return this.marks.length === 1;
  }

  add(literal: string, mark: number): void {
    const children = this.children;
    if (children === null) throw new Error('affix trie: add after the first scan');
    if (literal === '') throw new Error('affix trie: the empty literal is found everywhere, not at an edge');
    let node = 0;
    for (let step = 0; step < literal.length; step++) {
      const code = literal.charCodeAt(this.fromEnd ? literal.length - 1 - step : step);
      let next = children[node]?.get(code);
      if (next === undefined) {
        next = this.marks.length;
        this.marks.push([]);
        children.push(new Map());
        children[node]?.set(code, next);
      }
      node = next;
    }
    const marks = this.marks[node];
    if (marks !== undefined && !marks.includes(mark)) marks.push(mark);
  }

  private build(children: Map<number, number>[]): void {
    const edges = children.reduce((sum, map) => sum + map.size, 0);
    let size = 2;
    while (size < edges * 2) size *= 2;
    this.mask = size - 1;
    this.parents = new Int32Array(size).fill(EMPTY);
    this.codes = new Int32Array(size);
    this.targets = new Int32Array(size);
    children.forEach((map, node) => {
      for (const [code, target] of map) {
        let slot = slotOf(node, code) & this.mask;
        while (this.parents[slot] !== EMPTY) slot = (slot + 1) & this.mask;
        this.parents[slot] = node;
        this.codes[slot] = code;
        this.targets[slot] = target;
      }
    });
    this.children = null;
  }

  /** Marks every literal the text starts with (or ends with). */
  scan(text: string, candidates: Candidates): void {
    if (this.children !== null) this.build(this.children);
    const { parents, codes, targets, mask, marks, fromEnd } = this;
    const length = text.length;
    let node = 0;
    for (let step = 0; step < length; step++) {
      const code = text.charCodeAt(fromEnd ? length - 1 - step : step);
      let slot = slotOf(node, code) & mask;
      for (;;) {
        const parent = parents[slot] ?? EMPTY;
        if (parent === EMPTY) return;
        if (parent === node && codes[slot] === code) break;
        slot = (slot + 1) & mask;
      }
      node = targets[slot] ?? 0;
      const found = marks[node];
      if (found !== undefined && found.length > 0) candidates.mark(found);
    }
  }
}

function slotOf(node: number, code: number): number {
  return Math.imul(Math.imul(node, 0x9e3779b1) ^ code, 0x85ebca6b) >>> 7;
}
