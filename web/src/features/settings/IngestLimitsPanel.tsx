// Settings › Collector › Ingest limits: what the platform operator allows the tenant's collector,
// read-only here (docs/collector.md, "Per-tenant ingest limits").
import { Fragment } from 'react';
import { useQuery } from '@tanstack/react-query';
import { api } from '../../api/client';
import { QueryView } from '../../components/QueryView';

export interface IngestLimits {
  records_per_second: number | null;
  records_burst: number | null;
  bytes_per_second: number | null;
  bytes_burst: number | null;
  updated_at: string | null;
  updated_by: string | null;
  /** Shown to operators only: the collector nodes sharing the rates. */
  collector_nodes?: number;
}

export type LimitField = 'records_per_second' | 'records_burst' | 'bytes_per_second' | 'bytes_burst';

export const limitFields: { field: LimitField; label: string }[] = [
  { field: 'records_per_second', label: 'Records per second' },
  { field: 'records_burst', label: 'Records burst' },
  { field: 'bytes_per_second', label: 'Bytes per second (decoded)' },
  { field: 'bytes_burst', label: 'Bytes burst (decoded)' },
];

export function IngestLimitsPanel() {
  const limits = useQuery({
    queryKey: ['collector', 'ingest-limits'],
    queryFn: () => api.get<IngestLimits>('/v1/collector/ingest-limits'),
  });
  return (
    <QueryView query={limits} loading="Loading the ingest limits" error="Could not load the ingest limits">
      {(data) =>
        data.records_per_second === null && data.bytes_per_second === null ? (
          <p className="muted">No ingest limits: the collector accepts whatever your forwarders send.</p>
        ) : (
          <>
            <dl className="facts" aria-label="Ingest limits">
              {limitFields.map(({ field, label }) => (
                <Fragment key={field}>
                  <dt>{label}</dt>
                  <dd>{data[field]?.toLocaleString('en') ?? 'No limit'}</dd>
                </Fragment>
              ))}
            </dl>
            <p className="muted">
              Set by the platform operator. Over a limit the collector answers 429 with Retry-After and stores nothing
              of that request; a request larger than a burst is answered 413: send smaller requests.
            </p>
          </>
        )
      }
    </QueryView>
  );
}
