// Which of one field's required literals occur in an event's (folded) text, each looked for
// where the rule needs it: a whole-text literal (`Image: 'C:\x.exe'`, `EventID: 4688`) by one
// map lookup, a leading or trailing one (`|startswith`, `|endswith`) at the text's edge
// (affix-trie.ts), and only the rest by a search through the whole text (substring-index.ts).
import { AffixTrie } from './affix-trie.js';
import type { Candidates } from './candidates.js';
import type { Anchor } from './item.js';
import { SubstringIndex } from './substring-index.js';

export class LiteralIndex {
  private readonly whole = new Map<string, number[]>();
  /**
   * The lengths of the whole-text literals, one bit each (63: that long or longer). Looking a
   * text up hashes all of it: a command line is not hashed to learn it is not `4688`.
   */
  private readonly wholeLengths = new Uint32Array(2);
  private readonly starts = new AffixTrie(false);
  private readonly ends = new AffixTrie(true);
  private readonly anywhere = new SubstringIndex();
  private anywhereCount = 0;
  // Which parts have literals: decided when the first text is scanned.
  private parts: { whole: boolean; starts: boolean; ends: boolean; anywhere: boolean } | null = null;

  /** `mark` is what the candidates are marked with when the literal is found. */
  add(literal: string, mark: number, at: Anchor = 'anywhere'): void {
    if (this.parts !== null) throw new Error('literal index: add after the first scan');
    // The empty literal is in (and at either edge of) every text: the substring index marks it for each.
    if (at === 'anywhere' || (literal === '' && at !== 'whole')) {
      this.anywhere.add(literal, mark);
      this.anywhereCount++;
    } else if (at === 'whole') {
      const bit = Math.min(literal.length, 63);
      this.wholeLengths[bit >>> 5] = (this.wholeLengths[bit >>> 5] ?? 0) | (1 << (bit & 31));
      const marks = this.whole.get(literal);
      if (marks === undefined) this.whole.set(literal, [mark]);
      else if (!marks.includes(mark)) marks.push(mark);
    } else (at === 'start' ? this.starts : this.ends).add(literal, mark);
  }

  /** Marks every literal found where it is needed in the text. */
  scan(text: string, candidates: Candidates): void {
    const parts = (this.parts ??= {
      whole: this.whole.size > 0,
      starts: !this.starts.empty,
      ends: !this.ends.empty,
      anywhere: this.anywhereCount > 0,
    });
    if (parts.whole) {
      const bit = Math.min(text.length, 63);
      if (((this.wholeLengths[bit >>> 5] ?? 0) & (1 << (bit & 31))) !== 0) {
        const marks = this.whole.get(text);
        if (marks !== undefined) candidates.mark(marks);
      }
    }
    if (parts.starts) this.starts.scan(text, candidates);
    if (parts.ends) this.ends.scan(text, candidates);
    if (parts.anywhere) this.anywhere.scan(text, candidates);
  }
}
