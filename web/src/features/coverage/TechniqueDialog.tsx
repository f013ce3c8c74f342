// One technique's coverage: its rules with level, logsource and whether that logsource was seen,
// and its sub-techniques (each opens in turn).
import { Dialog } from '../../components/Dialog';
import { Badge } from '../../components/ui';
import { describeLogsource, type CoverageStatus, type TechniqueCoverage } from './api';

export const STATUS_TEXT: Record<CoverageStatus, string> = { live: 'Live', silent: 'Silent', uncovered: 'Uncovered' };
/** A mark per status, so the matrix reads without its colours. */
const MARK: Record<CoverageStatus, string> = { live: '●', silent: '◐', uncovered: '○' };

export function StatusMark({ status }: { status: CoverageStatus }) {
  return (
    <span className="coverage-mark" aria-hidden="true">
      {MARK[status]}
    </span>
  );
}

export function TechniqueDialog({
  technique,
  byId,
  onOpen,
  onClose,
}: {
  technique: TechniqueCoverage;
  byId: ReadonlyMap<string, TechniqueCoverage>;
  onOpen: (id: string) => void;
  onClose: () => void;
}) {
  const parent = technique.parent === null ? undefined : byId.get(technique.parent);
  return (
    <Dialog title={`${technique.id} ${technique.name}`} onClose={onClose} wide>
      <p data-testid="technique-status">
        <StatusMark status={technique.status} /> {STATUS_TEXT[technique.status]}
        {technique.status === 'uncovered'
          ? ': no loaded rule names this technique itself.'
          : `: ${technique.rules.filter((rule) => rule.live).length} of ${technique.rules.length} rule(s) have their logsource in your telemetry.`}
        {technique.combined_status !== technique.status &&
          ` With its sub-techniques: ${STATUS_TEXT[technique.combined_status].toLowerCase()}.`}
      </p>
      {parent && (
        <p>
          Sub-technique of{' '}
          <button type="button" className="link-button" onClick={() => onOpen(parent.id)}>
            {parent.id} {parent.name}
          </button>
        </p>
      )}
      {technique.rules.length > 0 && (
        <table className="table" data-testid="technique-rules">
          <caption className="visually-hidden">Rules covering {technique.id}</caption>
          <thead>
            <tr>
              <th scope="col">Rule</th>
              <th scope="col">Level</th>
              <th scope="col">Logsource</th>
              <th scope="col">Telemetry</th>
            </tr>
          </thead>
          <tbody>
            {technique.rules.map((rule) => (
              <tr key={rule.id}>
                <td>
                  {rule.title}
                  {rule.type === 'correlation' && ' (correlation)'}
                </td>
                <td>{rule.level}</td>
                <td>{rule.logsources.map(describeLogsource).join(', ') || 'none'}</td>
                <td>{rule.live ? <Badge tone="success">Seen</Badge> : <Badge tone="warning">Not seen</Badge>}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {technique.subtechniques.length > 0 && (
        <>
          <h3>Sub-techniques</h3>
          <ul className="coverage-subtechniques">
            {technique.subtechniques.map((id) => {
              const sub = byId.get(id);
              if (!sub) return null;
              return (
                <li key={id}>
                  <button type="button" className="link-button" onClick={() => onOpen(id)}>
                    <StatusMark status={sub.status} /> {sub.id} {sub.name}
                  </button>{' '}
                  — {STATUS_TEXT[sub.status]}
                  {sub.rules.length > 0 && `, ${sub.rules.length} rule${sub.rules.length === 1 ? '' : 's'}`}
                </li>
              );
            })}
          </ul>
        </>
      )}
    </Dialog>
  );
}
