// One tenant's ATT&CK coverage now: its logsources seen within the window, checked against the
// rule index, shaped for the API (snake_case) and for the Navigator layer export.
import type { Kysely } from 'kysely';
import type { Tables } from '../storage/schema.js';
import { assessCoverage, type AttackCoverage, type CoverageIndex, type CoverageCounts } from './attack-coverage.js';
import { recentLogsources, type SeenLogsource } from './logsource-store.js';
import type { LogSource } from '../telemetry/normalise/event.js';

/** A rule is live when its logsource was produced within this many days. */
export const COVERAGE_WINDOW_DAYS = 7;
const DAY_MS = 86_400_000;

export interface TenantCoverage {
  coverage: AttackCoverage;
  seen: SeenLogsource[];
  since: number;
  until: number;
}

export async function tenantCoverage(
  db: Kysely<Tables>,
  index: CoverageIndex,
  tenantId: number,
  now: number,
): Promise<TenantCoverage> {
  const since = now - COVERAGE_WINDOW_DAYS * DAY_MS;
  const seen = await recentLogsources(db, tenantId, since);
  const coverage = assessCoverage(
    index,
    seen.map((entry) => entry.logsource),
  );
  return { coverage, seen, since, until: now };
}

const iso = (time: number) => new Date(time).toISOString();

function presentLogsource(logsource: LogSource) {
  return {
    product: logsource.product ?? null,
    category: logsource.category ?? null,
    service: logsource.service ?? null,
  };
}

const presentCounts = (counts: CoverageCounts) => ({ ...counts });

export function presentCoverage({ coverage, seen, since, until }: TenantCoverage) {
  return {
    attack_version: coverage.version,
    window: { days: COVERAGE_WINDOW_DAYS, since: iso(since), until: iso(until) },
    counts: {
      techniques: presentCounts(coverage.counts.techniques),
      subtechniques: presentCounts(coverage.counts.subtechniques),
    },
    tactics: coverage.tactics.map((tactic) => ({
      id: tactic.id,
      shortname: tactic.shortname,
      name: tactic.name,
      technique_ids: tactic.techniques,
      counts: presentCounts(tactic.counts),
    })),
    techniques: coverage.techniques.map((technique) => ({
      id: technique.id,
      name: technique.name,
      parent: technique.parent,
      tactics: technique.tactics,
      status: technique.status,
      combined_status: technique.combinedStatus,
      subtechniques: technique.subtechniques,
      rules: technique.rules.map((rule) => ({
        id: rule.id,
        title: rule.title,
        level: rule.level,
        type: rule.type,
        logsources: rule.logsources.map(presentLogsource),
        live: rule.live,
      })),
    })),
    logsources_seen: seen.map((entry) => ({
      ...presentLogsource(entry.logsource),
      first_seen: iso(entry.firstSeen),
      last_seen: iso(entry.lastSeen),
    })),
  };
}
