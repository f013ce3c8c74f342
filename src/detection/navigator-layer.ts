// ATT&CK coverage as an ATT&CK Navigator layer (layer format 4.5), to open in MITRE's Navigator
// or merge with other layers there. Every catalogue technique and sub-technique is listed with a
// score (live 2, silent 1, uncovered 0), the matching colour, a comment, and its covering rules
// as metadata. A technique's status is the same under every tactic, so no `tactic` is set: the
// Navigator then shows the annotation under each tactic the technique belongs to.
import type { AttackCoverage, CoverageStatus, TechniqueCoverage } from './attack-coverage.js';

/** The Navigator release the layer is written for (the format requires at least 4.9.0). */
export const NAVIGATOR_VERSION = '5.1.0';
export const LAYER_FORMAT_VERSION = '4.5' as const;

export const STATUS_SCORE: Record<CoverageStatus, number> = { uncovered: 0, silent: 1, live: 2 };
export const STATUS_COLOR: Record<CoverageStatus, string> = {
  live: '#31a354',
  silent: '#fdae6b',
  uncovered: '#e5e5e5',
};
const STATUS_LABEL: Record<CoverageStatus, string> = {
  live: 'Live: a covering rule’s logsource was seen',
  silent: 'Silent: covered, but no covering rule’s logsource was seen',
  uncovered: 'Uncovered: no loaded rule',
};
/** Rules listed in a technique's metadata; the comment still counts them all. */
const MAX_RULES_LISTED = 25;

type Metadata = { name: string; value: string } | { divider: true };

export interface NavigatorTechnique {
  techniqueID: string;
  score: number;
  color: string;
  comment: string;
  enabled: boolean;
  metadata: Metadata[];
  showSubtechniques: boolean;
}

export interface NavigatorLayer {
  name: string;
  versions: { attack: string; navigator: string; layer: typeof LAYER_FORMAT_VERSION };
  domain: 'enterprise-attack';
  description: string;
  sorting: number;
  layout: { layout: 'side'; showID: boolean; showName: boolean; expandedSubtechniques: 'annotated' };
  hideDisabled: boolean;
  techniques: NavigatorTechnique[];
  gradient: { colors: string[]; minValue: number; maxValue: number };
  legendItems: { label: string; color: string }[];
  metadata: Metadata[];
}

export interface LayerContext {
  tenantName: string;
  windowDays: number;
  generatedAt: number;
}

export function navigatorLayer(coverage: AttackCoverage, context: LayerContext): NavigatorLayer {
  const byId = new Map(coverage.techniques.map((technique) => [technique.id, technique]));
  const { techniques: parents, subtechniques } = coverage.counts;
  return {
    name: `Sightline ATT&CK coverage: ${context.tenantName}`,
    // The Navigator names ATT&CK releases by their major version.
    versions: {
      attack: coverage.version.split('.')[0] ?? coverage.version,
      navigator: NAVIGATOR_VERSION,
      layer: LAYER_FORMAT_VERSION,
    },
    domain: 'enterprise-attack',
    description:
      `Detection coverage of ${context.tenantName} on ${new Date(context.generatedAt).toISOString()}: ` +
      `live techniques have a covering rule whose logsource the telemetry produced in the last ${context.windowDays} days; ` +
      `silent ones are covered only by rules whose logsource was not seen; uncovered ones by no loaded rule.`,
    sorting: 3,
    layout: { layout: 'side', showID: true, showName: true, expandedSubtechniques: 'annotated' },
    hideDisabled: false,
    techniques: coverage.techniques.map((technique) => layerTechnique(technique, byId, context.windowDays)),
    gradient: {
      colors: [STATUS_COLOR.uncovered, STATUS_COLOR.silent, STATUS_COLOR.live],
      minValue: STATUS_SCORE.uncovered,
      maxValue: STATUS_SCORE.live,
    },
    legendItems: (['live', 'silent', 'uncovered'] as const).map((status) => ({
      label: STATUS_LABEL[status],
      color: STATUS_COLOR[status],
    })),
    metadata: [
      { name: 'Tenant', value: context.tenantName },
      { name: 'Generated', value: new Date(context.generatedAt).toISOString() },
      { name: 'Telemetry window', value: `${context.windowDays} days` },
      { divider: true },
      { name: 'Techniques', value: describeCounts(parents) },
      { name: 'Sub-techniques', value: describeCounts(subtechniques) },
    ],
  };
}

function layerTechnique(
  technique: TechniqueCoverage,
  byId: ReadonlyMap<string, TechniqueCoverage>,
  windowDays: number,
): NavigatorTechnique {
  const live = technique.rules.filter((rule) => rule.live).length;
  const comment =
    technique.status === 'uncovered'
      ? 'No loaded rule covers this technique.'
      : `${technique.status === 'live' ? 'Live' : 'Silent'}: ${live} of ${technique.rules.length} covering rule(s) have a logsource seen in the last ${windowDays} days.`;
  const metadata: Metadata[] = technique.rules.slice(0, MAX_RULES_LISTED).map((rule) => ({
    name: `${rule.live ? 'live' : 'silent'} ${rule.level}`,
    value: `${rule.title} (${rule.id}) [${rule.logsources.map(describeLogsource).join(', ') || 'no logsource'}]`,
  }));
  if (technique.rules.length > MAX_RULES_LISTED)
    metadata.push({ name: 'more', value: `${technique.rules.length - MAX_RULES_LISTED} more rule(s)` });
  return {
    techniqueID: technique.id,
    score: STATUS_SCORE[technique.status],
    color: STATUS_COLOR[technique.status],
    comment,
    enabled: true,
    metadata,
    // Open a technique whose sub-techniques carry coverage, so the Navigator shows where it is.
    showSubtechniques: technique.subtechniques.some((id) => byId.get(id)?.status !== 'uncovered'),
  };
}

function describeLogsource(logsource: { product?: string; category?: string; service?: string }): string {
  return [logsource.product, logsource.category, logsource.service].map((part) => part ?? '').join('/');
}

function describeCounts(counts: { total: number; live: number; silent: number; uncovered: number }): string {
  return `${counts.live} live, ${counts.silent} silent, ${counts.uncovered} uncovered of ${counts.total}`;
}
