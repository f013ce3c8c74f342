// The overview's two charts (recharts): observations per day stacked by level, and cases by
// status. A bar is a link: clicking it opens the list it counts.
import {
  Bar,
  BarChart,
  CartesianGrid,
  Legend,
  Rectangle,
  ResponsiveContainer,
  Tooltip,
  XAxis,
  YAxis,
  type BarShapeProps,
} from 'recharts';
import { useNavigate } from 'react-router';
import { levelColors, statusColors } from '../../components/badges';
import { formatNumber, humanize } from '../../lib/format';
import { levels, type Level, type ObservationStats } from '../observations/types';
import { statuses, type CaseCounts } from '../cases/types';

const DAY_MS = 86_400_000;
const dayLabel = new Intl.DateTimeFormat(undefined, { day: 'numeric', month: 'short', timeZone: 'UTC' });

const tooltipStyle = {
  contentStyle: {
    background: 'var(--surface)',
    border: '1px solid var(--border)',
    borderRadius: 6,
    fontSize: 12.5,
    color: 'var(--text)',
  },
  labelStyle: { fontWeight: 600, color: 'var(--text)' },
  cursor: { fill: 'var(--surface-hover)' },
};
const axisTick = { fill: 'var(--text-muted)', fontSize: 11.5 };

export function ObservationsPerDayChart({ stats }: { stats: ObservationStats }) {
  const navigate = useNavigate();
  const since = Date.parse(stats.since);
  const data = stats.days.map((day, index) => ({
    ...day,
    // The date is the local day the server cut; read it as a calendar date, not an instant.
    label: dayLabel.format(new Date(`${day.date}T00:00:00Z`)),
    start: new Date(since + index * DAY_MS).toISOString(),
    end: new Date(since + (index + 1) * DAY_MS).toISOString(),
  }));
  const total = stats.days.reduce((sum, day) => sum + day.total, 0);
  const open = (day: (typeof data)[number] | undefined, level?: string) => {
    if (!day) return;
    const query = new URLSearchParams({ since: day.start, until: day.end, ...(level ? { level } : {}) });
    void navigate(`/observations?${query.toString()}`);
  };
  return (
    <figure
      className="overview-chart"
      aria-label={`Observations per day by level: ${formatNumber(total)} in ${stats.days.length} days`}
    >
      <div className="chart">
        <ResponsiveContainer width="100%" height="100%">
          <BarChart
            data={data}
            margin={{ top: 8, right: 8, bottom: 0, left: -12 }}
            onClick={(state) => open(data[Number(state.activeIndex ?? -1)])}
          >
            <CartesianGrid vertical={false} stroke="var(--border)" />
            <XAxis
              dataKey="label"
              tick={axisTick}
              tickLine={false}
              axisLine={{ stroke: 'var(--border)' }}
              interval="preserveStartEnd"
              minTickGap={8}
            />
            <YAxis allowDecimals={false} tick={axisTick} tickLine={false} axisLine={false} width={44} />
            {/* The tooltip lists the levels as the stack shows them, most severe on top; the legend reads least to most. */}
            <Tooltip
              {...tooltipStyle}
              itemSorter={(item) => -levels.indexOf(String(item.dataKey) as Level)}
              formatter={(value, name) => [formatNumber(Number(value)), humanize(String(name))]}
            />
            <Legend
              iconType="square"
              iconSize={10}
              wrapperStyle={{ fontSize: 12 }}
              itemSorter={(item) => levels.indexOf(String(item.dataKey) as Level)}
              formatter={(value) => humanize(String(value))}
            />
            {levels.map((level) => (
              <Bar
                key={level}
                dataKey={level}
                name={level}
                stackId="levels"
                fill={levelColors[level]}
                cursor="pointer"
                maxBarSize={36}
                isAnimationActive={false}
                onClick={(item, _index, event) => {
                  event.stopPropagation();
                  open(item.payload as (typeof data)[number], level);
                }}
              />
            ))}
          </BarChart>
        </ResponsiveContainer>
      </div>
      {total === 0 && (
        <figcaption className="chart-empty">No observations in the last {stats.days.length} days.</figcaption>
      )}
    </figure>
  );
}

export function CasesByStatusChart({ counts }: { counts: CaseCounts }) {
  const navigate = useNavigate();
  const data = statuses.map((status) => ({ status, label: humanize(status), count: counts.by_status[status] }));
  const total = data.reduce((sum, item) => sum + item.count, 0);
  return (
    <figure
      className="overview-chart"
      aria-label={`Cases by status: ${data.map((item) => `${item.label} ${item.count}`).join(', ')}`}
    >
      <div className="chart">
        <ResponsiveContainer width="100%" height="100%">
          <BarChart data={data} layout="vertical" margin={{ top: 8, right: 40, bottom: 0, left: 8 }}>
            <CartesianGrid horizontal={false} stroke="var(--border)" />
            <XAxis type="number" allowDecimals={false} tick={axisTick} tickLine={false} axisLine={false} />
            <YAxis type="category" dataKey="label" tick={axisTick} tickLine={false} axisLine={false} width={84} />
            <Tooltip {...tooltipStyle} formatter={(value) => [formatNumber(Number(value)), 'Cases']} />
            <Bar
              dataKey="count"
              name="Cases"
              cursor="pointer"
              maxBarSize={30}
              isAnimationActive={false}
              label={{
                position: 'right',
                fill: 'var(--text)',
                fontSize: 12,
                // A status without cases draws no bar, and no label beside it.
                valueAccessor: (entry) => (typeof entry.value === 'number' && entry.value > 0 ? entry.value : null),
              }}
              // Each bar in its status's colour.
              shape={(props: BarShapeProps) => (
                <Rectangle {...props} fill={statusColors[(props.payload as (typeof data)[number]).status]} />
              )}
              onClick={(item) => {
                void navigate(`/cases?status=${(item.payload as (typeof data)[number]).status}`);
              }}
            />
          </BarChart>
        </ResponsiveContainer>
      </div>
      {total === 0 && <figcaption className="chart-empty">No cases yet.</figcaption>}
    </figure>
  );
}
