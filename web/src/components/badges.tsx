// How case statuses, severities and observation levels look everywhere they appear.
import { Badge, type Tone } from './ui';
import { humanize } from '../lib/format';

const severityTone: Record<string, Tone> = {
  informational: 'neutral',
  info: 'neutral',
  low: 'info',
  medium: 'warning',
  high: 'danger',
  critical: 'critical',
};

/** A case severity or an observation level (the Sigma levels). */
export function SeverityBadge({ value }: { value: string }) {
  return <Badge tone={severityTone[value] ?? 'neutral'}>{humanize(value)}</Badge>;
}

const statusTone: Record<string, Tone> = {
  new: 'accent',
  in_progress: 'info',
  on_hold: 'warning',
  closed: 'neutral',
};

export function StatusBadge({ value }: { value: string }) {
  return <Badge tone={statusTone[value] ?? 'neutral'}>{humanize(value)}</Badge>;
}

/** The case score 0–100 as a small bar with the number. */
export function ScoreMeter({ score }: { score: number }) {
  const tone = score >= 75 ? 'critical' : score >= 50 ? 'danger' : score >= 25 ? 'warning' : 'info';
  return (
    <span className={`score score-${tone}`} title={`Score ${score} of 100`}>
      <span className="score-bar" style={{ width: `${Math.max(4, score)}%` }} />
      <span className="score-value">{score}</span>
    </span>
  );
}

/** Chart colours per level, matching the badges. */
export const levelColors: Record<string, string> = {
  informational: '#94a3b8',
  low: '#38bdf8',
  medium: '#f59e0b',
  high: '#ef4444',
  critical: '#a21caf',
};

export const statusColors: Record<string, string> = {
  new: '#6366f1',
  in_progress: '#0ea5e9',
  on_hold: '#f59e0b',
  closed: '#94a3b8',
};

/** ATT&CK technique ids, the first `max` shown (names on hover) and how many more. */
export function TechniqueIds({
  techniques,
  max = 1,
}: {
  techniques: { id: string; name: string | null; tactics?: string[] }[];
  max?: number;
}) {
  if (techniques.length === 0) return <span className="faint">—</span>;
  const describe = (technique: (typeof techniques)[number]) =>
    `${technique.id} ${technique.name ?? '(not in the catalogue)'}${technique.tactics?.length ? ` — ${technique.tactics.join(', ')}` : ''}`;
  return (
    <span className="mono technique-ids">
      {techniques.slice(0, max).map((technique) => (
        <abbr key={technique.id} title={describe(technique)}>
          {technique.id}
        </abbr>
      ))}
      {techniques.length > max && (
        <span className="faint" title={techniques.slice(max).map(describe).join('\n')}>
          +{techniques.length - max}
        </span>
      )}
    </span>
  );
}
