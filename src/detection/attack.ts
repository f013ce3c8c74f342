// The MITRE ATT&CK Enterprise catalogue (attack/attack-enterprise-18.1.json, see
// attack/NOTICE-ATTACK.md): names the techniques and tactics that Sigma rules are tagged with
// (`attack.t1059.004`, `attack.initial-access`), so observations and cases can show them.
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';

/** The bundled catalogue (same depth from src/detection and dist/detection). */
export const ATTACK_CATALOGUE_FILE = fileURLToPath(
  new URL('../../attack/attack-enterprise-18.1.json', import.meta.url),
);

export interface AttackTechnique {
  /** `T1059` or `T1059.004`. */
  id: string;
  name: string;
  /** Tactic short names (`execution`), in the catalogue's order. */
  tactics: string[];
  /** The parent technique of a sub-technique. */
  parent?: string;
}

export interface AttackTactic {
  /** `TA0002`. */
  id: string;
  /** `execution`, `command-and-control`. */
  shortname: string;
  name: string;
}

/** A technique tag. One the catalogue does not know is kept: `name: null`, no tactics. */
export interface TaggedTechnique {
  id: string;
  name: string | null;
  tactics: string[];
  known: boolean;
}

/**
 * A tactic tag. One the catalogue does not know (a newer ATT&CK's `attack.stealth`) is kept and
 * shown as written: `name` is the tag's text after `attack.`, `id` is absent.
 */
export interface TaggedTactic {
  shortname: string;
  name: string;
  id?: string;
  known: boolean;
}

export interface AttackTags {
  techniques: TaggedTechnique[];
  tactics: TaggedTactic[];
  /** Every other tag, as written: groups and software (`attack.g0016`), `cve.…`, `detection.…`. */
  other: string[];
}

export interface AttackCatalogue {
  /** The ATT&CK release, e.g. `18.1`. */
  version: string;
  /** Case-insensitive: `t1059.004` finds T1059.004. */
  technique(id: string): AttackTechnique | undefined;
  /** Every technique and sub-technique, in the file's order (for searches by name). */
  techniques(): readonly AttackTechnique[];
  /** By short name, with hyphens or underscores, case-insensitive. */
  tactic(shortname: string): AttackTactic | undefined;
  /** Every tactic in the catalogue's order: the matrix's columns, reconnaissance to impact. */
  tactics(): readonly AttackTactic[];
  /** Sigma tags → techniques and tactics, in tag order, without duplicates; nothing is dropped. */
  fromTags(tags: readonly string[]): AttackTags;
}

export class AttackCatalogueError extends Error {
  override name = 'AttackCatalogueError';
}

const TECHNIQUE_TAG = /^attack\.(t\d{4}(?:\.\d{3})?)$/i;
/** Tactic tags are words; tags with digits (`attack.g0016`, `attack.s0154`) are other tags. */
const TACTIC_TAG = /^attack\.([a-z]+(?:[-_][a-z]+)*)$/i;

let bundled: AttackCatalogue | undefined;

/** The bundled catalogue, read and checked on first use. */
export function loadAttackCatalogue(): AttackCatalogue {
  bundled ??= parseAttackCatalogue(JSON.parse(fs.readFileSync(ATTACK_CATALOGUE_FILE, 'utf8')), ATTACK_CATALOGUE_FILE);
  return bundled;
}

/** Builds a catalogue from the file's JSON; a file of another shape is refused, naming what is wrong. */
export function parseAttackCatalogue(json: unknown, file = 'ATT&CK catalogue'): AttackCatalogue {
  if (!isObject(json)) throw new AttackCatalogueError(`${file}: expected a JSON object`);
  const version = json.version;
  if (typeof version !== 'string') throw new AttackCatalogueError(`${file}: "version" must be a string`);
  const tactics = new Map<string, AttackTactic>();
  for (const [index, item] of arrayAt(json, 'tactics', file).entries()) {
    const where = `${file}: tactics[${index}]`;
    if (!isObject(item)) throw new AttackCatalogueError(`${where} must be an object`);
    const tactic: AttackTactic = {
      id: text(item, 'id', where),
      shortname: text(item, 'shortname', where),
      name: text(item, 'name', where),
    };
    tactics.set(tacticKey(tactic.shortname), tactic);
  }
  const techniques = new Map<string, AttackTechnique>();
  for (const [index, item] of arrayAt(json, 'techniques', file).entries()) {
    const where = `${file}: techniques[${index}]`;
    if (!isObject(item)) throw new AttackCatalogueError(`${where} must be an object`);
    const phases = item.tactics;
    if (!Array.isArray(phases) || !phases.every((phase): phase is string => typeof phase === 'string')) {
      throw new AttackCatalogueError(`${where}.tactics must be a list of strings`);
    }
    const unknown = phases.find((phase) => !tactics.has(tacticKey(phase)));
    if (unknown !== undefined) throw new AttackCatalogueError(`${where}.tactics names unknown tactic "${unknown}"`);
    const technique: AttackTechnique = {
      id: text(item, 'id', where).toUpperCase(),
      name: text(item, 'name', where),
      tactics: phases,
    };
    if (item.parent !== undefined) technique.parent = text(item, 'parent', where);
    techniques.set(technique.id, technique);
  }
  return createCatalogue(version, techniques, tactics);
}

function createCatalogue(
  version: string,
  techniques: Map<string, AttackTechnique>,
  tactics: Map<string, AttackTactic>,
): AttackCatalogue {
  return {
    version,
    technique: (id) => techniques.get(id.toUpperCase()),
    techniques: () => [...techniques.values()],
    tactic: (shortname) => tactics.get(tacticKey(shortname)),
    tactics: () => [...tactics.values()],
    fromTags(tags) {
      const result: AttackTags = { techniques: [], tactics: [], other: [] };
      const seen = new Set<string>();
      for (const tag of tags) {
        const techniqueId = TECHNIQUE_TAG.exec(tag)?.[1];
        if (techniqueId !== undefined) {
          const id = techniqueId.toUpperCase();
          if (seen.has(id)) continue;
          seen.add(id);
          const known = techniques.get(id);
          result.techniques.push(
            known
              ? { id, name: known.name, tactics: [...known.tactics], known: true }
              : { id, name: null, tactics: [], known: false },
          );
          continue;
        }
        const written = TACTIC_TAG.exec(tag)?.[1];
        if (written !== undefined) {
          const shortname = tacticKey(written);
          if (seen.has(`tactic:${shortname}`)) continue;
          seen.add(`tactic:${shortname}`);
          const known = tactics.get(shortname);
          result.tactics.push(
            known
              ? { shortname, name: known.name, id: known.id, known: true }
              : { shortname, name: written, known: false },
          );
          continue;
        }
        if (!seen.has(`other:${tag}`)) {
          seen.add(`other:${tag}`);
          result.other.push(tag);
        }
      }
      return result;
    },
  };
}

/** Sigma wrote tactics with underscores before spec v2 (`initial_access`); ATT&CK uses hyphens. */
function tacticKey(shortname: string): string {
  return shortname.toLowerCase().replaceAll('_', '-');
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function arrayAt(json: Record<string, unknown>, key: string, file: string): unknown[] {
  const value = json[key];
  if (!Array.isArray(value)) throw new AttackCatalogueError(`${file}: "${key}" must be a list`);
  return value;
}

function text(item: Record<string, unknown>, key: string, where: string): string {
  const value = item[key];
  if (typeof value !== 'string' || value === '')
    throw new AttackCatalogueError(`${where}.${key} must be a non-empty string`);
  return value;
}
