// A short list of cases inside another page (the overview's highest-scoring cases, a device's
// cases), in the columns of the case list: number, title with its hosts, severity, score, status.
// A row opens its case.
import { Link, useNavigate } from 'react-router';
import { ScoreMeter, SeverityBadge, StatusBadge } from '../../components/badges';

/** What a row needs; the case list's cases and a device's case references both fit. */
export interface CaseSummary {
  id: string;
  number: number;
  title: string;
  status: string;
  score: number;
  severity?: string;
  devices?: { host_name: string }[];
}

export function CaseSummaryTable({ cases, label }: { cases: CaseSummary[]; label: string }) {
  const navigate = useNavigate();
  const withSeverity = cases.some((kase) => kase.severity !== undefined);
  return (
    <div className="table-wrap">
      <table className="table" aria-label={label}>
        <thead>
          <tr>
            <th className="num">#</th>
            <th>Title</th>
            {withSeverity && <th>Severity</th>}
            <th>Score</th>
            <th>Status</th>
          </tr>
        </thead>
        <tbody>
          {cases.map((kase) => (
            <tr
              key={kase.id}
              className={`clickable ${kase.status === 'closed' ? 'row-muted' : ''}`}
              onClick={() => void navigate(`/cases/${kase.id}`)}
            >
              <td className="num">
                <Link to={`/cases/${kase.id}`} onClick={(event) => event.stopPropagation()}>
                  #{kase.number}
                </Link>
              </td>
              <td className="fill" title={kase.title}>
                <Link to={`/cases/${kase.id}`} onClick={(event) => event.stopPropagation()}>
                  {kase.title}
                </Link>
                {kase.devices && kase.devices.length > 0 && (
                  <span className="subline">{kase.devices.map((device) => device.host_name).join(', ')}</span>
                )}
              </td>
              {withSeverity && <td>{kase.severity && <SeverityBadge value={kase.severity} />}</td>}
              <td>
                <ScoreMeter score={kase.score} />
              </td>
              <td>
                <StatusBadge value={kase.status} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
