// Similar cases: the tenant's other cases that hold the same observables, ranked by what they
// share. Each shared value weighs by its type (a file hash says more than a host name), twice
// when this case tags it `ioc`, 1 when it is tagged `internal`, nothing when `benign`; shared
// ATT&CK techniques add one each. Reads only, bounded by SIMILAR_LIMITS.
import type { ObservableType } from '../detection/observable-values.js';
import { findCasesByIds, type Db } from './case-store.js';
import { requireCase } from './case-service.js';
import { sharedValues } from './case-observable-store.js';
import type { CaseStatus } from './case-workflow.js';

export const SIMILAR_LIMITS = {
  defaultLimit: 10,
  maxLimit: 50,
  /** Other cases read per shared value (a value most cases hold cannot flood the answer). */
  casesPerValue: 50,
  /** Shared (case, value) pairs read in all. */
  sharedPairs: 5_000,
  /** Cases ranked by observables before techniques are compared. */
  candidates: 200,
  /** Shared observables listed per case. */
  listed: 20,
} as const;

export const TYPE_WEIGHTS: Record<ObservableType, number> = {
  sha256: 5,
  sha1: 5,
  md5: 5,
  url: 4,
  domain: 3,
  email: 3,
  ip: 3,
  command_line: 3,
  process_path: 2,
  user: 2,
  host: 1,
};

export function observableWeight(type: string, tags: readonly string[]): number {
  if (tags.includes('benign')) return 0;
  const base = tags.includes('internal') ? 1 : ((TYPE_WEIGHTS as Partial<Record<string, number>>)[type] ?? 1);
  return tags.includes('ioc') ? base * 2 : base;
}

interface Candidate {
  caseId: string;
  weight: number;
  shared: { type: string; value: string; weight: number }[];
}

function byWeight(a: { weight: number; type: string; value: string }, b: typeof a): number {
  return b.weight - a.weight || a.type.localeCompare(b.type) || a.value.localeCompare(b.value);
}

/** GET /v1/cases/{case_id}/similar */
export async function similarCases(db: Db, tenantId: number, caseRef: string, limit: number) {
  const row = await requireCase(db, tenantId, caseRef);
  const pairs = await sharedValues(db, tenantId, row.id, {
    perValue: SIMILAR_LIMITS.casesPerValue,
    limit: SIMILAR_LIMITS.sharedPairs,
  });
  const candidates = new Map<string, Candidate>();
  for (const pair of pairs) {
    const weight = observableWeight(pair.type, JSON.parse(pair.tags) as string[]);
    if (weight === 0) continue;
    let candidate = candidates.get(pair.caseId);
    if (!candidate) candidates.set(pair.caseId, (candidate = { caseId: pair.caseId, weight: 0, shared: [] }));
    candidate.weight += weight;
    candidate.shared.push({ type: pair.type, value: pair.value, weight });
  }
  const strongest = [...candidates.values()]
    .sort((a, b) => b.weight - a.weight || a.caseId.localeCompare(b.caseId))
    .slice(0, SIMILAR_LIMITS.candidates);
  const rows = new Map(
    (
      await findCasesByIds(
        db,
        tenantId,
        strongest.map((candidate) => candidate.caseId),
      )
    ).map((found) => [found.id, found]),
  );
  const own = new Set(JSON.parse(row.techniques) as string[]);
  const ranked = strongest.flatMap((candidate) => {
    const other = rows.get(candidate.caseId);
    if (!other) return [];
    const techniques = (JSON.parse(other.techniques) as string[]).filter((id) => own.has(id)).sort();
    const shared = candidate.shared.sort(byWeight);
    return [
      {
        id: other.id,
        number: other.number,
        title: other.title,
        status: other.status as CaseStatus,
        severity: other.severity,
        score: other.score,
        last_observation_at: new Date(other.last_observation_at).toISOString(),
        similarity: candidate.weight + techniques.length,
        observable_weight: candidate.weight,
        shared_observable_count: shared.length,
        shared_observables: shared
          .slice(0, SIMILAR_LIMITS.listed)
          .map(({ type, value }) => ({ type: type as ObservableType, value })),
        shared_techniques: techniques,
      },
    ];
  });
  ranked.sort(
    (a, b) => b.similarity - a.similarity || b.observable_weight - a.observable_weight || b.number - a.number,
  );
  return { case_id: row.id, cases: ranked.slice(0, limit) };
}
