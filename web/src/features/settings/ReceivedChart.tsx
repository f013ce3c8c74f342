// Records received per hour over the last 24 hours (GET /v1/collector), as bars, with the same
// numbers as a table for screen readers and for reading exact values.
import { Bar, BarChart, CartesianGrid, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import { useQuery } from '@tanstack/react-query';
import { api } from '../../api/client';
import { QueryView } from '../../components/QueryView';
import { RefreshButton, Time } from '../../components/ui';
import { bucketStart } from '../../lib/chart-bucket';
import { formatNumber } from '../../lib/format';
import type { CollectorStats } from './types';

const hourFormat = new Intl.DateTimeFormat(undefined, { hour: '2-digit', minute: '2-digit' });
const dayHourFormat = new Intl.DateTimeFormat(undefined, { weekday: 'short', hour: '2-digit', minute: '2-digit' });

export function ReceivedChart() {
  const stats = useQuery({
    queryKey: ['collector', 'stats'],
    queryFn: () => api.get<CollectorStats>('/v1/collector'),
    refetchInterval: 30_000,
  });
  return (
    <QueryView query={stats} loading="Counting records" error="Could not count the records">
      {(data) => <Received received={data.received} onRefresh={() => stats.refetch()} />}
    </QueryView>
  );
}

function Received({
  received,
  onRefresh,
}: {
  received: CollectorStats['received'];
  onRefresh: () => Promise<unknown>;
}) {
  const data = received.buckets.map((bucket) => ({ ...bucket, label: hourFormat.format(new Date(bucket.start)) }));
  const current = received.buckets[received.buckets.length - 1];
  return (
    <>
      <div className="stats-row">
        <div className="stat">
          <span className="stat-value" data-testid="total-records">
            {formatNumber(received.total_records)}
          </span>
          <span className="stat-label">records in the last 24 h</span>
        </div>
        <div className="stat">
          <span className="stat-value" data-testid="current-hour-records">
            {formatNumber(current?.records ?? 0)}
          </span>
          <span className="stat-label">this hour so far</span>
        </div>
        <div className="stat">
          <span className="stat-value">
            {received.last_received_at ? <Time iso={received.last_received_at} /> : 'Never'}
          </span>
          <span className="stat-label">last record received</span>
        </div>
        <div className="stats-row-actions">
          <RefreshButton onRefresh={onRefresh} />
        </div>
      </div>
      <div
        className="chart"
        role="img"
        aria-label={`Records received per hour over the last 24 hours; ${formatNumber(current?.records ?? 0)} this hour so far`}
      >
        <ResponsiveContainer width="100%" height="100%">
          <BarChart data={data} margin={{ top: 6, right: 8, bottom: 0, left: 0 }}>
            <CartesianGrid strokeDasharray="3 3" vertical={false} stroke="var(--border)" />
            <XAxis dataKey="label" tick={{ fontSize: 11, fill: 'var(--text-muted)' }} interval={2} tickLine={false} />
            <YAxis
              allowDecimals={false}
              tick={{ fontSize: 11, fill: 'var(--text-muted)' }}
              width={48}
              tickFormatter={(value: number) => formatNumber(value)}
            />
            <Tooltip
              cursor={{ fill: 'var(--surface-hover)' }}
              contentStyle={{
                background: 'var(--surface)',
                border: '1px solid var(--border)',
                borderRadius: 6,
                fontSize: 12,
              }}
              labelFormatter={(_label, payload) => {
                const start = bucketStart(payload[0]);
                return start ? `From ${dayHourFormat.format(new Date(start))}` : '';
              }}
              formatter={(value) => [formatNumber(Number(value)), 'records']}
            />
            <Bar
              dataKey="records"
              fill="var(--accent)"
              radius={[3, 3, 0, 0]}
              isAnimationActive={false}
              minPointSize={0}
            />
          </BarChart>
        </ResponsiveContainer>
      </div>
      <details>
        <summary>Show as a table</summary>
        <div className="table-wrap">
          <table className="table" aria-label="Records received per hour">
            <thead>
              <tr>
                <th>Hour from</th>
                <th className="num">Records</th>
              </tr>
            </thead>
            <tbody>
              {received.buckets.map((bucket) => (
                <tr key={bucket.start}>
                  <td>{dayHourFormat.format(new Date(bucket.start))}</td>
                  <td className="num">{formatNumber(bucket.records)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </details>
    </>
  );
}
