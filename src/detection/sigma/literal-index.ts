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
      const marks = this.whole.get(text);
      if (marks !== undefined) candidates.mark(marks);
    }
    if (parts.starts) this.starts.scan(text, candidates);
    if (parts.ends) this.ends.scan(text, candidates);
    if (parts.anywhere) this.anywhere.scan(text, candidates);
  }
}
