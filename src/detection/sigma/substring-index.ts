// Which of one field's required literals occur anywhere in an event's (folded) text, in one pass over it.
// An ASCII literal of three or more characters is found by one anchor, a trigram of it (chosen so
// that few literals share an anchor): at each position of the text the trigram starting there is
// looked up in an open-addressing table of integers, and each literal anchored on it is confirmed
// with startsWith. A one- or two-character ASCII literal is its own key into a direct table (no
// hashing, nothing to confirm), and is marked once per text however often it occurs: `\\`, `-`
// or ` ` occur a dozen times in a command line. Literals with other characters (emoji, Cyrillic
// look-alikes) are anchored on their first such character and looked for only when the text has
// one: logs are nearly all ASCII.
import type { Candidates } from './candidates.js';

interface LiteralEntry {
  literal: string;
  rules: number[];
}

const EMPTY = -1;
/** The short literals' keys: a pair is `(first << 7) | second`, a character is PAIRS + its code. */
const PAIRS = 1 << 14;
/** Per ASCII character: whether a one-character literal is that character, or a pair literal starts with it. */
const SINGLE = 1;
const PAIR_START = 2;

const isAscii = (text: string) => {
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) > 127) return false;
  return true;
};

export class SubstringIndex {
  private readonly entries = new Map<string, LiteralEntry>();
  private built = false;
  /** Rules requiring the empty literal: found in any text. */
  private readonly everywhere: number[] = [];
  // The ASCII literals' anchor table: keys, and per slot the range of its anchored literals.
  private keys = new Int32Array(2).fill(EMPTY);
  private starts = new Int32Array(2);
  private ends = new Int32Array(2);
  private shift = 31;
  /** One bit per hashed trigram anchor (2^15 bits). */
  private readonly filter = new Uint32Array(1024);
  private anchored: LiteralEntry[] = [];
  private offsets = new Int32Array(0);
  private readonly shortStarts = new Uint8Array(128);
  // The short literals (laid out only when there are some): per key, a number (0: none), and per
  // number its rules and the scan that last marked it (a literal is marked once per text).
  private shortIds = new Uint16Array(0);
  private shortRules: number[][] = [[]];
  private shortSeen = new Uint32Array(0);
  private scans = 0;
  // Literals with a character above U+007F, by that character.
  private readonly wide = new Map<number, { entry: LiteralEntry; offset: number }[]>();

  add(literal: string, rule: number): void {
    if (this.built) throw new Error('substring index: add after the first scan');
    let entry = this.entries.get(literal);
    if (!entry) {
      entry = { literal, rules: [] };
      this.entries.set(literal, entry);
    }
    if (entry.rules.at(-1) !== rule) entry.rules.push(rule);
  }

  /** Lays out the lookup tables once every literal is in. */
  private build(): void {
    this.built = true;
    const byKey = new Map<number, { entry: LiteralEntry; offset: number }[]>();
    const anchor = (key: number, entry: LiteralEntry, offset: number) => {
      const list = byKey.get(key);
      if (list) list.push({ entry, offset });
      else byKey.set(key, [{ entry, offset }]);
    };
    // Shortest first: they have the fewest trigrams to choose from.
    const ordered = [...this.entries.values()].sort((a, b) => a.literal.length - b.literal.length);
    const common = trigramCounts(ordered.map((entry) => entry.literal));
    for (const entry of ordered) {
      const text = entry.literal;
      if (text === '') this.everywhere.push(...entry.rules);
      else if (!isAscii(text)) {
        let offset = 0;
        while (text.charCodeAt(offset) <= 127) offset++;
        const code = text.charCodeAt(offset);
        const list = this.wide.get(code);
        if (list) list.push({ entry, offset });
        else this.wide.set(code, [{ entry, offset }]);
      } else if (text.length === 1) {
        const code = text.charCodeAt(0);
        this.shortStarts[code] = (this.shortStarts[code] ?? 0) | SINGLE;
        this.addShort(PAIRS + code, entry.rules);
      } else if (text.length === 2) {
        const code = text.charCodeAt(0);
        this.shortStarts[code] = (this.shortStarts[code] ?? 0) | PAIR_START;
        this.addShort((code << 7) | text.charCodeAt(1), entry.rules);
      } else {
        // Every position of a text whose trigram is an anchor costs a lookup and a comparison:
        // anchor on the trigram fewest literals have (a stand-in for how rare it is in logs),
        // and on one already anchored when that is as rare (`\windows\temp\` on `\te`, and
        // every literal inside `windows` on the same trigram of it, not on each of the seven).
        let best = 0;
        let bestCost = Infinity;
        for (let offset = 0; offset + 3 <= text.length; offset++) {
          const key = trigramAt(text, offset);
          const count = common.get(key) ?? 1;
          const cost = byKey.has(key) ? count : 2 * count;
          if (cost < bestCost) {
            best = offset;
            bestCost = cost;
          }
        }
        anchor(trigramAt(text, best), entry, best);
      }
    }
    let size = 2;
    while (size < byKey.size * 2) size *= 2;
    this.shift = 32 - Math.log2(size);
    this.keys = new Int32Array(size).fill(EMPTY);
    this.starts = new Int32Array(size);
    this.ends = new Int32Array(size);
    const offsets: number[] = [];
    for (const [key, list] of byKey) {
      let slot = Math.imul(key, 0x9e3779b1) >>> this.shift;
      while (this.keys[slot] !== EMPTY) slot = (slot + 1) & (size - 1);
      const bit = Math.imul(key, 0x2545f491) >>> 17;
      this.filter[bit >>> 5] = (this.filter[bit >>> 5] ?? 0) | (1 << (bit & 31));
      this.keys[slot] = key;
      this.starts[slot] = this.anchored.length;
      for (const { entry, offset } of list) {
        this.anchored.push(entry);
        offsets.push(offset);
      }
      this.ends[slot] = this.anchored.length;
    }
    this.offsets = Int32Array.from(offsets);
    this.shortSeen = new Uint32Array(this.shortRules.length);
  }

  /** Gives a one- or two-character literal (each is added once) its number. */
  private addShort(key: number, rules: number[]): void {
    if (this.shortIds.length === 0) this.shortIds = new Uint16Array(PAIRS + 128);
    if (this.shortRules.length > 0xffff) throw new Error('substring index: more short literals than keys');
    this.shortIds[key] = this.shortRules.length;
    this.shortRules.push(rules);
  }

  /** Marks the rules of every literal found in the text. */
  scan(text: string, candidates: Candidates): void {
    if (!this.built) this.build();
    if (this.everywhere.length > 0) candidates.mark(this.everywhere);
    if (this.scans === 0xffffffff) {
      // Wrapped: a key marked in the last cycle would read as marked in this text.
      this.shortSeen.fill(0);
      this.scans = 0;
    }
    const scan = ++this.scans;
    const length = text.length;
    const { shortStarts, shortIds, shortSeen, keys, shift, filter } = this;
    const mask = keys.length - 1;
    let wide = false;
    let next = length > 0 ? text.charCodeAt(0) : 0;
    let after = length > 1 ? text.charCodeAt(1) : 0;
    for (let index = 0; index < length; index++) {
      const code = next;
      next = after;
      after = index + 2 < length ? text.charCodeAt(index + 2) : 128;
      if (code > 127) {
        wide = true;
        continue;
      }
      const flags = shortStarts[code] ?? 0;
      if (flags !== 0) {
        if (flags & SINGLE) this.markShort(shortIds[PAIRS + code] ?? 0, scan, candidates);
        if (flags & PAIR_START && next <= 127) {
          const id = shortIds[(code << 7) | next] ?? 0;
          if (id !== 0 && shortSeen[id] !== scan) this.markShort(id, scan, candidates);
        }
      }
      // `after` is 128 past the end of the text, so the test also stops trigrams running off it.
      if ((next | after) > 127) continue;
      const key = (code << 14) | (next << 7) | after;
      // Most positions anchor nothing: one bit, in a table small enough to stay in cache, says so.
      const bit = Math.imul(key, 0x2545f491) >>> 17;
      if (((filter[bit >>> 5] ?? 0) & (1 << (bit & 31))) === 0) continue;
      let slot = Math.imul(key, 0x9e3779b1) >>> shift;
      for (;;) {
        const found = keys[slot];
        if (found === key) {
          this.confirm(slot, text, index, candidates);
          break;
        }
        if (found === EMPTY || found === undefined) break;
        slot = (slot + 1) & mask;
      }
    }
    if (wide && this.wide.size > 0) this.scanWide(text, candidates);
  }

  /** Marks the short literal numbered `id` unless this scan has marked it already. */
  private markShort(id: number, scan: number, candidates: Candidates): void {
    if (this.shortSeen[id] === scan) return;
    this.shortSeen[id] = scan;
    const rules = this.shortRules[id];
    if (rules !== undefined) candidates.mark(rules);
  }

  /** Confirms each literal anchored in the slot against the text. */
  private confirm(slot: number, text: string, index: number, candidates: Candidates): void {
    const end = this.ends[slot] ?? 0;
    for (let at = this.starts[slot] ?? 0; at < end; at++) {
      const entry = this.anchored[at];
      const start = index - (this.offsets[at] ?? 0);
      if (entry !== undefined && start >= 0 && text.startsWith(entry.literal, start)) candidates.mark(entry.rules);
    }
  }

  private scanWide(text: string, candidates: Candidates): void {
    for (let index = 0; index < text.length; index++) {
      const code = text.charCodeAt(index);
      if (code <= 127) continue;
      const list = this.wide.get(code);
      if (list === undefined) continue;
      for (const { entry, offset } of list) {
        if (index >= offset && text.startsWith(entry.literal, index - offset)) candidates.mark(entry.rules);
      }
    }
  }
}

/** Per trigram of the ASCII literals, how many of them have it. */
function trigramCounts(literals: readonly string[]): Map<number, number> {
  const counts = new Map<number, number>();
  for (const literal of literals) {
    if (!isAscii(literal)) continue;
    const seen = new Set<number>();
    for (let offset = 0; offset + 3 <= literal.length; offset++) seen.add(trigramAt(literal, offset));
    for (const key of seen) counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return counts;
}

/** Three ASCII characters as 21 bits. */
function trigramAt(text: string, at: number): number {
  return (text.charCodeAt(at) << 14) | (text.charCodeAt(at + 1) << 7) | text.charCodeAt(at + 2);
}
