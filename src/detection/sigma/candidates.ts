// The rules an event may match, as the literal pre-filter finds their requirements met: marks
// per rule and clause, reset per event without clearing (a generation counter).

/**
 * The rules an event may match, each listed once. A rule may require several clauses (each: one
 * of its literals) and is listed when all of them were marked. A mark is a number: the rule's
 * index for its first clause (or a rule with one), `index + clause * rules` for the others.
 */
export class Candidates {
  readonly list: number[] = [];
  /** Per rule: the event generation of its marks; the clauses marked; the mask of all its clauses. */
  private readonly marks: Uint32Array;
  private readonly marked: Uint32Array;
  private readonly complete: Uint32Array;
  private generation = 0;

  /** `clauses[rule]`: how many clauses the rule needs (1 when not given; at most 32). */
  constructor(
    private readonly rules: number,
    clauses?: readonly number[],
  ) {
    this.marks = new Uint32Array(rules);
    this.marked = new Uint32Array(rules);
    this.complete = new Uint32Array(rules).fill(1);
    clauses?.forEach((count, rule) => {
      if (count < 1 || count > 32) throw new Error(`candidates: rule ${rule} needs ${count} clauses (1 to 32)`);
      this.complete[rule] = count === 32 ? 0xffffffff : (1 << count) - 1;
    });
  }

  /** Starts a new event: nothing marked. */
  reset(): void {
    if (this.generation === 0xffffffff) {
      // Wrapped: marks from the last cycle would read as this event's.
      this.marks.fill(0);
      this.generation = 0;
    }
    this.generation += 1;
    this.list.length = 0;
  }

  mark(keys: readonly number[]): void {
    const { marks, marked, complete, generation, list, rules } = this;
    for (const key of keys) {
      const clause = key < rules ? 0 : Math.floor(key / rules);
      const index = key - clause * rules;
      if (marks[index] !== generation) {
        marks[index] = generation;
        marked[index] = 0;
      }
      const before = marked[index] ?? 0;
      const after = (before | (1 << clause)) >>> 0;
      if (after === before) continue;
      marked[index] = after;
      if (after === complete[index]) list.push(index);
    }
  }
}
