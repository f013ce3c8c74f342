// A summary as the API shows it, with the stale check: a summary never updates itself, so it
// records what the case looked like when it was generated, and says `stale: true` with the
// reasons once the case has moved on.
import type { CaseRow } from '../cases/case-store.js';
import type { DeviceRow } from '../devices/device-store.js';
import type { SummaryRow } from './summary-store.js';
import type { SummaryFlag } from './summary-check.js';
import type { SectionKey } from './sections.js';
import { INACCURACY_NOTICE, isEvidenceId } from './sections.js';

export interface SummaryBasis {
  observation_count: number;
  status: string;
  /** Device id → what the summary was told about it (host name, description, criticality, user, endpoint, isolation). */
  devices: Record<string, string>;
}

export type StaleReason = 'observations_added' | 'status_changed' | 'device_changed';

// The isolation state joins the mark only once a response action set it, so summaries made
// before response actions existed are not all marked stale.
const deviceMark = (
  device: Pick<
    DeviceRow,
    'host_name' | 'description' | 'criticality' | 'last_user' | 'endpoint_id' | 'isolation_state'
  >,
) =>
  JSON.stringify([
    device.host_name,
    device.description,
    device.criticality,
    device.last_user,
    device.endpoint_id,
    ...(device.isolation_state === null ? [] : [device.isolation_state]),
  ]);

export function basisOf(
  row: Pick<CaseRow, 'observation_count' | 'status'>,
  devices: readonly DeviceRow[],
): SummaryBasis {
  return {
    observation_count: row.observation_count,
    status: row.status,
    devices: Object.fromEntries(devices.map((device) => [device.id, deviceMark(device)])),
  };
}

export function staleReasons(then: SummaryBasis, now: SummaryBasis): StaleReason[] {
  const reasons: StaleReason[] = [];
  if (then.observation_count !== now.observation_count) reasons.push('observations_added');
  if (then.status !== now.status) reasons.push('status_changed');
  const before = Object.entries(then.devices).sort();
  const after = Object.entries(now.devices).sort();
  if (JSON.stringify(before) !== JSON.stringify(after)) reasons.push('device_changed');
  return reasons;
}

export interface SummaryView {
  id: string;
  text: string;
  sections: { key: SectionKey; heading: string; markdown: string }[];
  /** Observations cited in the text, each with its API link. */
  citations: { observation_id: string; href: string }[];
  /** Evidence rows cited in the text (process events, connections), each with the case timeline that lists it. */
  evidence_citations: { evidence_id: string; kind: 'process' | 'connection'; href: string }[];
  /** What the output check dropped or added. */
  flags: SummaryFlag[];
  provider: string;
  model: string;
  is_llm: boolean;
  prompt_version: string;
  generated_at: string;
  requested_by: { id: string; label: string };
  input_tokens: number;
  output_tokens: number;
  latency_ms: number;
  from_cache: boolean;
  stale: boolean;
  stale_reasons: StaleReason[];
  notice: string;
}

export function presentSummary(row: SummaryRow, current: SummaryBasis): SummaryView {
  const reasons = staleReasons(JSON.parse(row.basis) as SummaryBasis, current);
  const cited = JSON.parse(row.citations) as string[];
  return {
    id: row.id,
    text: row.text,
    sections: JSON.parse(row.sections) as SummaryView['sections'],
    citations: cited
      .filter((id) => !isEvidenceId(id))
      .map((id) => ({
        observation_id: id,
        href: `/v1/observations/${id}`,
      })),
    evidence_citations: cited.filter(isEvidenceId).map((id) => ({
      evidence_id: id,
      kind: id.startsWith('proc_') ? ('process' as const) : ('connection' as const),
      href: `/v1/cases/${row.case_id}/timeline`,
    })),
    flags: JSON.parse(row.flags) as SummaryFlag[],
    provider: row.provider,
    model: row.model,
    is_llm: row.is_llm === 1,
    prompt_version: row.prompt_version,
    generated_at: new Date(row.generated_at).toISOString(),
    requested_by: { id: row.requested_by, label: row.requested_by_label },
    input_tokens: row.input_tokens,
    output_tokens: row.output_tokens,
    latency_ms: row.latency_ms,
    from_cache: row.from_cache === 1,
    stale: reasons.length > 0,
    stale_reasons: reasons,
    notice: INACCURACY_NOTICE,
  };
}
