// The case list's table: sortable columns, the selection checkboxes (with cases:write), one dense
// row per case that opens it; the page keeps the state (filters, selection, the keyboard row).
import { Link } from 'react-router';
import { ScoreMeter, SeverityBadge, StatusBadge, TechniqueIds } from '../../components/badges';
import { Badge, Time } from '../../components/ui';
import { humanize } from '../../lib/format';
import type { CaseUrlFilters } from './CaseFilters';
import type { Case } from './types';

type SortKey = 'created' | 'updated' | 'score';

/** A column header that sorts; `title` names the sort key when the label does not (# sorts by creation). */
function SortHeader({
  label,
  title = label,
  sortKey,
  filters,
  update,
}: {
  label: string;
  title?: string;
  sortKey: SortKey;
  filters: CaseUrlFilters;
  update: (changes: CaseUrlFilters) => void;
}) {
  const active = (filters.sort ?? 'created') === sortKey;
  const order = filters.order === 'asc' ? 'asc' : 'desc';
  return (
    <button
      type="button"
      className="sort"
      aria-pressed={active}
      aria-label={`Sort by ${title.toLowerCase()}`}
      title={`Sort by ${title.toLowerCase()}`}
      onClick={() =>
        update({ sort: sortKey === 'created' ? '' : sortKey, order: active && order === 'desc' ? 'asc' : '' })
      }
    >
      {label} {active ? (order === 'desc' ? '↓' : '↑') : ''}
    </button>
  );
}

function Devices({ item }: { item: Case }) {
  const [first] = item.devices;
  if (!first) return <span className="faint">—</span>;
  return (
    <span title={item.devices.map((device) => device.host_name).join(', ')}>
      {first.host_name}
      {item.devices.length > 1 && <span className="faint"> +{item.devices.length - 1}</span>}
    </span>
  );
}

export function CaseListTable({
  cases,
  filters,
  update,
  selected,
  selectedIds,
  canWrite,
  refreshing,
  onOpen,
  onToggle,
  onSelectIds,
}: {
  cases: Case[];
  filters: CaseUrlFilters;
  update: (changes: CaseUrlFilters) => void;
  /** The keyboard row (j/k). */
  selected: number;
  /** The cases ticked for bulk actions. */
  selectedIds: ReadonlySet<string>;
  canWrite: boolean;
  refreshing: boolean;
  onOpen: (index: number) => void;
  onToggle: (id: string) => void;
  onSelectIds: (ids: Set<string>) => void;
}) {
  const allOnPage = cases.length > 0 && cases.every((item) => selectedIds.has(item.id));
  return (
    <div className="table-wrap">
      <table className={`table case-table ${refreshing ? 'is-refreshing' : ''}`} aria-label="Cases">
        <thead>
          <tr>
            {canWrite && (
              <th className="check">
                <input
                  type="checkbox"
                  aria-label="Select all cases on this page"
                  checked={allOnPage}
                  onChange={() => onSelectIds(allOnPage ? new Set() : new Set(cases.map((item) => item.id)))}
                />
              </th>
            )}
            <th className="num">
              <SortHeader label="#" title="Created" sortKey="created" filters={filters} update={update} />
            </th>
            <th>Title</th>
            <th>Severity</th>
            <th>
              <SortHeader label="Score" sortKey="score" filters={filters} update={update} />
            </th>
            <th>Status</th>
            <th>Assignee</th>
            <th>Devices</th>
            <th>Techniques</th>
            <th className="num" title="Observations">
              Obs.
            </th>
            <th>
              <SortHeader label="Updated" sortKey="updated" filters={filters} update={update} />
            </th>
          </tr>
        </thead>
        <tbody>
          {cases.map((item, index) => (
            <tr
              key={item.id}
              className={`clickable ${item.status === 'closed' ? 'row-muted' : ''}`}
              data-row-index={index}
              aria-selected={selected === index}
              onClick={() => onOpen(index)}
            >
              {canWrite && (
                <td className="check" onClick={(event) => event.stopPropagation()}>
                  <input
                    type="checkbox"
                    aria-label={`Select case ${item.number}`}
                    checked={selectedIds.has(item.id)}
                    onChange={() => onToggle(item.id)}
                  />
                </td>
              )}
              <td className="num mono">{item.number}</td>
              <td className="truncate case-title-cell">
                <Link to={`/cases/${item.number}`} onClick={(event) => event.stopPropagation()} title={item.title}>
                  {item.title}
                </Link>
                {item.tags.length > 0 && (
                  <span className="row-tags">
                    {item.tags.slice(0, 3).map((tag) => (
                      <span key={tag} className="tag-chip small">
                        {tag}
                      </span>
                    ))}
                  </span>
                )}
              </td>
              <td>
                <SeverityBadge value={item.severity} />
              </td>
              <td>
                <ScoreMeter score={item.score} />
              </td>
              <td className="nowrap">
                <StatusBadge value={item.status} />
                {item.resolution && <span className="faint small-text"> {humanize(item.resolution)}</span>}
                {item.status !== 'closed' &&
                  item.sla &&
                  (item.sla.acknowledge.breached || item.sla.resolve.breached) && (
                    <>
                      {' '}
                      <Badge tone="critical" title="An SLA clock of this case ran out">
                        SLA breached
                      </Badge>
                    </>
                  )}
              </td>
              <td className="nowrap">
                {item.assignee ? (
                  <span title={item.assignee.email}>{item.assignee.name}</span>
                ) : (
                  <span className="faint">—</span>
                )}
              </td>
              <td className="nowrap">
                <Devices item={item} />
              </td>
              <td className="nowrap">
                <TechniqueIds techniques={item.techniques} />
              </td>
              <td className="num">{item.observation_count}</td>
              <td className="nowrap">
                <Time iso={item.updated_at} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
