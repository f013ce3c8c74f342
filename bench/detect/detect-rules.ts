// Synthetic Sigma rules for the detection benchmark: realistic rule shapes over the logsources
// and fields Sightline's records give (web, sshd/auth/syslog, Windows and Linux process
// creation, network connections, Kubernetes audit), each keyed on made-up literals (tool names,
// paths, flags) as real SigmaHQ rules are keyed on specific ones. Every rule comes with a raw
// record that triggers it, so the benchmark's attacks exercise the synthetic rules too.
import { stringify } from 'yaml';
import { between as int, hex, pick, type Random } from '../../src/core/random.js';
import { TEMPLATES, type Template } from './detect-rule-templates.js';
import { Names, type RecordSpec } from './detect-rule-names.js';
import { at } from '../common/checked.js';

const uuid = (r: Random) =>
  `${hex(r, 8)}-${hex(r, 4)}-4${hex(r, 3)}-${pick(r, ['8', '9', 'a', 'b'])}${hex(r, 3)}-${hex(r, 12)}`;

export type { RecordSpec };

export interface SyntheticRule {
  /** Relative path under the rule directory, e.g. `web/0042.yml`. */
  file: string;
  id: string;
  text: string;
  /** A record the rule matches. */
  trigger: RecordSpec;
}

const TACTICS = [
  'execution',
  'persistence',
  'privilege-escalation',
  'defense-evasion',
  'credential-access',
  'discovery',
  'lateral-movement',
  'command-and-control',
  'exfiltration',
  'initial-access',
];
const TOTAL_WEIGHT = TEMPLATES.reduce((sum, [, weight]) => sum + weight, 0);

function pickTemplate(r: Random): Template {
  let roll = r() * TOTAL_WEIGHT;
  for (const [template, weight] of TEMPLATES) {
    roll -= weight;
    if (roll < 0) return template;
  }
  return at(TEMPLATES, 0)[0];
}

/** `count` rules as Sigma YAML, reproducible for a given random source. */
export function generateRules(count: number, r: Random): SyntheticRule[] {
  const names = new Names(r);
  const rules: SyntheticRule[] = [];
  for (let index = 0; index < count; index++) {
    const draft = pickTemplate(r)(r, names);
    const id = uuid(r);
    const doc = {
      title: draft.title,
      id,
      status: pick(r, ['experimental', 'test', 'stable']),
      description: `Synthetic benchmark rule: ${draft.title.toLowerCase()}.`,
      author: 'Sightline bench:detect (synthetic)',
      date: '2026-11-23',
      tags: [`attack.${pick(r, TACTICS)}`, `attack.t${int(r, 1001, 1659)}`],
      logsource: draft.logsource,
      detection: draft.detection,
      falsepositives: ['Unknown'],
      level: pick(r, ['low', 'medium', 'medium', 'high', 'high', 'critical']),
    };
    rules.push({
      file: `${draft.folder}/${String(index).padStart(5, '0')}.yml`,
      id,
      text: stringify(doc),
      trigger: draft.trigger,
    });
  }
  return rules;
}
