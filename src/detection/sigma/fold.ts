// Case folding for Sigma's case-insensitive matching, for all of Unicode: a rule's `ÄRGER`
// matches an event's `ärger`, `STRASSE` matches `straße`. Rules and events are folded the same
// way, so only equality of the folded forms matters.

const NON_ASCII = /[\u0080-\uffff]/;
const FINAL_SIGMA = /ς/g;

/**
 * ASCII text takes the fast path (toLowerCase). Other text goes through upper then lower case,
 * which folds what lower case alone leaves apart (ß/SS → ss, ſ → s, final ς → σ): close to
 * Unicode's full case folding without a table. A `?` wildcard stands for one character of the
 * folded text, so it does not match an `ß` against `ss` (documented in docs/detection.md).
 */
export function fold(text: string): string {
  if (!NON_ASCII.test(text)) return text.toLowerCase();
  return text.toUpperCase().toLowerCase().replace(FINAL_SIGMA, 'σ');
}
