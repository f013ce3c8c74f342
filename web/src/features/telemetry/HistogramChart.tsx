// Matching records over the search's time range as bars (POST /v1/telemetry/histogram). A click
// on a bar narrows the search to that bucket, as in Kibana's Discover.
import { Bar, BarChart, CartesianGrid, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import type { UseQueryResult } from '@tanstack/react-query';
import { ErrorState } from '../../components/ui';
import { bucketStart } from '../../lib/chart-bucket';
import { formatNumber } from '../../lib/format';
import type { Histogram } from './types';

const timeOnly = new Intl.DateTimeFormat(undefined, { hour: '2-digit', minute: '2-digit' });
const withSeconds = new Intl.DateTimeFormat(undefined, { hour: '2-digit', minute: '2-digit', second: '2-digit' });
const dayAndTime = new Intl.DateTimeFormat(undefined, {
  month: 'short',
  day: '2-digit',
  hour: '2-digit',
  minute: '2-digit',
});
const dayOnly = new Intl.DateTimeFormat(undefined, { month: 'short', day: '2-digit' });

function tickFormat(width: number): Intl.DateTimeFormat {
  if (width < 60_000) return withSeconds;
  if (width < 3_600_000) return timeOnly;
  if (width < 86_400_000) return dayAndTime;
  return dayOnly;
}

function describeWidth(width: number): string {
  if (width < 60_000) return `${width / 1000} s`;
  if (width < 3_600_000) return `${width / 60_000} min`;
  if (width < 86_400_000) return `${width / 3_600_000} h`;
  return `${width / 86_400_000} d`;
}

export function HistogramChart({
  histogram,
  onZoom,
}: {
  histogram: UseQueryResult<Histogram>;
  onZoom: (since: string, until: string) => void;
}) {
  if (histogram.isError && !histogram.data)
    return (
      <ErrorState error={histogram.error} retry={() => void histogram.refetch()} title="Could not count matches" />
    );
  const data = histogram.data;
  const format = tickFormat(data?.interval_ms ?? 3_600_000);
  const bars = (data?.buckets ?? []).map((bucket) => ({ ...bucket, label: format.format(new Date(bucket.start)) }));
  const zoom = (start: string | undefined) => {
    if (!start || !data) return;
    const end = Math.min(Date.parse(start) + data.interval_ms, Date.parse(data.until));
    onZoom(new Date(Math.max(Date.parse(start), Date.parse(data.since))).toISOString(), new Date(end).toISOString());
  };
  return (
    <div className={`telemetry-histogram ${histogram.isFetching ? 'is-refreshing' : ''}`}>
      <div
        className="chart histogram-chart"
        role="img"
        aria-label={
          data
            ? `${formatNumber(data.total)} matching records, in buckets of ${describeWidth(data.interval_ms)}`
            : 'Counting matching records'
        }
      >
        {data && (
          <ResponsiveContainer width="100%" height="100%">
            <BarChart data={bars} margin={{ top: 4, right: 8, bottom: 0, left: 0 }} barCategoryGap={1}>
              <CartesianGrid strokeDasharray="3 3" vertical={false} stroke="var(--border)" />
              <XAxis
                dataKey="label"
                tick={{ fontSize: 11, fill: 'var(--text-muted)' }}
                tickLine={false}
                minTickGap={24}
              />
              <YAxis
                allowDecimals={false}
                tickCount={3}
                tick={{ fontSize: 11, fill: 'var(--text-muted)' }}
                width={44}
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
                  return start
                    ? `${dayAndTime.format(new Date(start))} · ${describeWidth(data.interval_ms)} (click to zoom in)`
                    : '';
                }}
                formatter={(value) => [formatNumber(Number(value)), 'records']}
              />
              <Bar
                dataKey="count"
                fill="var(--accent)"
                radius={[2, 2, 0, 0]}
                isAnimationActive={false}
                cursor="pointer"
                onClick={(entry) => zoom(bucketStart(entry))}
              />
            </BarChart>
          </ResponsiveContainer>
        )}
      </div>
    </div>
  );
}
