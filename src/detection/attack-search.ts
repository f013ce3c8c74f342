// Searching the ATT&CK catalogue by id or name, for autocompletes (a case's technique filter):
// the entries are lower-cased once, so a keystroke's search is one pass over them.
import type { AttackCatalogue } from './attack.js';

export interface TechniqueMatch {
  id: string;
  name: string;
  /** Tactic names (`Execution`), in the catalogue's order. */
  tactics: string[];
  /** The parent technique of a sub-technique. */
  parent: { id: string; name: string } | null;
}

export interface TechniqueSearch {
  /** ATT&CK release of the catalogue. */
  version: string;
  /**
   * Techniques whose id starts with `q` or whose name (or parent's name) holds it,
   * case-insensitive; best first: exact id, id prefix, name prefix, then name substring.
   * Without `q`: the first `limit` techniques by id.
   */
  search(q: string | undefined, limit: number): TechniqueMatch[];
}

export function createTechniqueSearch(catalogue: AttackCatalogue): TechniqueSearch {
  const techniques = [...catalogue.techniques()].sort((a, b) => a.id.localeCompare(b.id));
  const entries = techniques.map((technique) => {
    const parent = technique.parent ? catalogue.technique(technique.parent) : undefined;
    const match: TechniqueMatch = {
      id: technique.id,
      name: technique.name,
      tactics: technique.tactics.map((shortname) => catalogue.tactic(shortname)?.name ?? shortname),
      parent: parent ? { id: parent.id, name: parent.name } : null,
    };
    return {
      match,
      id: technique.id.toLowerCase(),
      name: technique.name.toLowerCase(),
      full: `${parent ? `${parent.name}: ` : ''}${technique.name}`.toLowerCase(),
    };
  });

  return {
    version: catalogue.version,
    search(q, limit) {
      const needle = q?.trim().toLowerCase() ?? '';
      if (needle === '') return entries.slice(0, limit).map((entry) => entry.match);
      const ranked: { rank: number; match: TechniqueMatch }[] = [];
      for (const entry of entries) {
        const rank =
          entry.id === needle
            ? 0
            : entry.id.startsWith(needle)
              ? 1
              : entry.name.startsWith(needle)
                ? 2
                : entry.name.includes(needle)
                  ? 3
                  : entry.full.includes(needle)
                    ? 4
                    : -1;
        if (rank >= 0) ranked.push({ rank, match: entry.match });
      }
      // Stable sort: within a rank, by id.
      return ranked
        .sort((a, b) => a.rank - b.rank)
        .slice(0, limit)
        .map((item) => item.match);
    },
  };
}
