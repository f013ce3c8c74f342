// A case's SLA clocks (the tenant's policy for its severity): acknowledge (until the case leaves
// new) and resolve (until it closes, paused on hold), each as due, time left, met or breached.
import { Badge, Panel, Time } from '../../components/ui';
import type { CaseDetail } from './types';

type Clock = NonNullable<CaseDetail['sla']>['acknowledge'];

/** A span of seconds in words, to the two largest units: "3 h 12 min", "45 s". */
export function spanInWords(seconds: number): string {
  const s = Math.abs(seconds);
  const units: [number, string][] = [
    [86_400, 'd'],
    [3_600, 'h'],
    [60, 'min'],
    [1, 's'],
  ];
  const parts: string[] = [];
  let rest = s;
  for (const [size, name] of units) {
    if (parts.length === 2) break;
    const count = Math.floor(rest / size);
    if (count > 0 || (parts.length === 0 && size === 1)) {
      parts.push(`${count} ${name}`);
      rest -= count * size;
    } else if (parts.length > 0) break;
  }
  return parts.join(' ');
}

function ClockState({ clock }: { clock: Clock }) {
  if (clock.stopped_at !== null)
    return clock.breached ? <Badge tone="critical">Breached</Badge> : <Badge tone="success">Met</Badge>;
  if (clock.breached)
    return (
      <Badge tone="critical" title={`Due ${clock.due_at}`}>
        Breached {spanInWords(clock.remaining_s ?? 0)} ago
      </Badge>
    );
  if (clock.paused) return <Badge tone="info">Paused: on hold</Badge>;
  return <Badge tone="warning">{spanInWords(clock.remaining_s ?? 0)} left</Badge>;
}

function ClockRow({ label, clock }: { label: string; clock: Clock }) {
  return (
    <>
      <dt>{label}</dt>
      <dd data-sla={label.toLowerCase()}>
        <ClockState clock={clock} />{' '}
        <span className="faint">
          {clock.stopped_at !== null ? (
            <>
              at <Time iso={clock.stopped_at} exact />
            </>
          ) : (
            <>
              due <Time iso={clock.due_at} exact />
            </>
          )}
        </span>
      </dd>
    </>
  );
}

export function SlaPanel({ detail }: { detail: CaseDetail }) {
  if (!detail.sla) return null;
  return (
    <Panel title="SLA">
      <dl className="facts case-facts">
        <ClockRow label="Acknowledge" clock={detail.sla.acknowledge} />
        <ClockRow label="Resolve" clock={detail.sla.resolve} />
      </dl>
    </Panel>
  );
}
