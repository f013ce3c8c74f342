// Records no parser recognised (GET /v1/collector/unrecognised), per source shape — the record's
// sorted top-level keys — with counts, first and last receive time and a redacted sample, so a
// customer sees when a forwarder starts sending a format Sightline does not parse. The sample is
// record text: React renders it as text, never as markup.
import { useQuery } from '@tanstack/react-query';
import { api } from '../../api/client';
import { QueryView } from '../../components/QueryView';
import { Empty, Notice, RefreshButton, Time } from '../../components/ui';
import { formatNumber } from '../../lib/format';

interface UnrecognisedShapes {
  shapes: {
    shape: string;
    keys: string[];
    records: number;
    first_seen_at: string;
    last_seen_at: string;
    sample: string;
  }[];
  total_records: number;
  max_shapes: number;
}

const counted = (n: number, noun: string) => `${formatNumber(n)} ${noun}${n === 1 ? '' : 's'}`;

export function UnrecognisedRecords() {
  const query = useQuery({
    queryKey: ['collector', 'unrecognised'],
    queryFn: () => api.get<UnrecognisedShapes>('/v1/collector/unrecognised'),
    refetchInterval: 60_000,
  });
  return (
    <QueryView query={query} loading="Loading unrecognised records" error="Could not load the unrecognised records">
      {(data) => (
        <>
          <div className="url-row">
            <RefreshButton onRefresh={() => query.refetch()} />
          </div>
          {data.shapes.length === 0 ? (
            <Empty>Every record received so far was in a shape Sightline recognises.</Empty>
          ) : (
            <>
              <Notice tone="info">
                {counted(data.total_records, 'record')} in {counted(data.shapes.length, 'shape')} were stored but
                recognised by no parser, so no rule for a logsource sees them. Check the forwarder's output format
                against docs/telemetry-mapping.md.
              </Notice>
              <table className="table" aria-label="Unrecognised records by shape">
                <thead>
                  <tr>
                    <th scope="col">Shape (top-level keys)</th>
                    <th scope="col">Records</th>
                    <th scope="col">First seen</th>
                    <th scope="col">Last seen</th>
                    <th scope="col">Newest record (sample)</th>
                  </tr>
                </thead>
                <tbody>
                  {data.shapes.map((shape) => (
                    <tr key={shape.shape}>
                      <td>
                        <code>{shape.keys.length === 0 ? shape.shape : shape.keys.join(', ')}</code>
                      </td>
                      <td>{formatNumber(shape.records)}</td>
                      <td>
                        <Time iso={shape.first_seen_at} />
                      </td>
                      <td>
                        <Time iso={shape.last_seen_at} />
                      </td>
                      <td>
                        <pre className="unrecognised-sample">{shape.sample}</pre>
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
              <p className="muted">
                At most {formatNumber(data.max_shapes)} shapes are kept; credential-like values are redacted and samples
                are cut to 1,000 characters.
              </p>
            </>
          )}
        </>
      )}
    </QueryView>
  );
}
