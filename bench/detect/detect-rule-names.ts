// What the synthetic rule templates share (detect-rule-templates.ts, detect-rules.ts): the draft
// a template returns, the record that triggers it, and made-up names no real rule uses.
import { type JsonObject, type Shape } from '../../test/fixtures/rule-pack/records.js';
import { between as int, hex, pick, type Random } from '../../src/core/random.js';

/** A raw record (a fixture shape plus overrides, see test/fixtures/rule-pack/records.ts). */
export interface RecordSpec {
  shape: Shape;
  overrides: JsonObject;
}

export interface Draft {
  folder: string;
  title: string;
  logsource: Record<string, string>;
  detection: Record<string, unknown>;
  trigger: RecordSpec;
}

const SYLLABLES = [
  'kra',
  'vel',
  'zor',
  'mun',
  'tek',
  'sha',
  'dri',
  'lox',
  'pim',
  'qua',
  'rist',
  'bel',
  'fen',
  'gor',
  'hux',
  'jav',
  'nim',
  'orb',
  'pex',
  'sol',
  'tav',
  'ulm',
  'wex',
  'yar',
  'zim',
  'cor',
  'dax',
  'fro',
  'gli',
  'hep',
  'ix',
  'mor',
  'nak',
  'syl',
  'vra',
  'ost',
];
/** Made-up names and tokens, each used by one rule only: `dravelox`, `pimsol37`. */
export class Names {
  private readonly used = new Set<string>();
  constructor(private readonly random: Random) {}

  name(): string {
    for (;;) {
      const parts = int(this.random, 2, 3);
      let name = '';
      for (let i = 0; i < parts; i++) name += pick(this.random, SYLLABLES);
      if (this.random() < 0.3) name += String(int(this.random, 2, 99));
      if (!this.used.has(name)) {
        this.used.add(name);
        return name;
      }
    }
  }

  token(): string {
    return `${this.name()}_${hex(this.random, 4)}`;
  }
}
