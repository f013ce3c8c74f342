// Rules: the Sigma rules this deployment runs (GET /v1/rules), each with its logsource and
// ATT&CK techniques. A rule whose logsource no input Sightline parses produces runs but can never
// fire: it carries a warning badge and the reason, and the filter lists those alone.
import { useState } from 'react';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { api } from '../../api/client';
import type { Page } from '../../api/types';
import { DebouncedInput } from '../../components/DebouncedInput';
import { Pager, useCursorPager } from '../../components/paging';
import { QueryView } from '../../components/QueryView';
import { SeverityBadge } from '../../components/badges';
import { Badge, Empty, Notice, PageHeader } from '../../components/ui';
import { formatNumber } from '../../lib/format';
import './rules.css';

interface RuleItem {
  id: string;
  title: string;
  level: string;
  type: 'detection' | 'correlation';
  logsource: { category: string | null; product: string | null; service: string | null };
  techniques: { id: string; name: string | null }[];
  file: string;
  reachable: boolean;
  unreachable_reason: string | null;
}
type RuleList = Page<'rules', RuleItem> & {
  total: number;
  loaded_count: number;
  unreachable_count: number;
  rejected_count: number;
};

const PAGE_SIZE = 100;
const SHOWN = { all: 'All rules', unreachable: 'Unreachable only', reachable: 'Reachable only' } as const;
type Shown = keyof typeof SHOWN;

function logsourceText(logsource: RuleItem['logsource']): string {
  const parts = Object.entries(logsource).filter(([, value]) => value !== null);
  return parts.length === 0 ? '—' : parts.map(([key, value]) => `${key}: ${value}`).join(', ');
}

export default function RulesPage() {
  const [shown, setShown] = useState<Shown>('all');
  const [text, setText] = useState('');
  const pager = useCursorPager(`${shown}|${text}`);
  const rules = useQuery({
    queryKey: ['rules', 'list', shown, text, pager.cursor],
    queryFn: ({ signal }) =>
      api.get<RuleList>('/v1/rules', {
        query: {
          limit: PAGE_SIZE,
          q: text || undefined,
          reachable: shown === 'all' ? undefined : shown === 'reachable',
          cursor: pager.cursor,
        },
        signal,
      }),
    placeholderData: keepPreviousData,
  });
  return (
    <>
      <PageHeader title="Rules" subtitle="The Sigma rules this deployment runs, and the ones that can never fire." />
      <div className="filters">
        <label className="field">
          <span className="field-label">Search</span>
          <DebouncedInput value={text} onSettle={setText} placeholder="Title or id" aria-label="Search rules" />
        </label>
        <label className="field">
          <span className="field-label">Show</span>
          <select value={shown} onChange={(event) => setShown(event.target.value as Shown)} aria-label="Show">
            {Object.entries(SHOWN).map(([value, label]) => (
              <option key={value} value={value}>
                {label}
              </option>
            ))}
          </select>
        </label>
      </div>
      <QueryView query={rules} loading="Loading rules" error="Could not load the rules">
        {(data) => (
          <>
            <p className="muted" aria-label="Rule counts">
              {formatNumber(data.loaded_count)} loaded, {formatNumber(data.unreachable_count)} unreachable,{' '}
              {formatNumber(data.rejected_count)} rejected
            </p>
            {data.unreachable_count > 0 && shown !== 'reachable' && (
              <Notice tone="warning">
                {formatNumber(data.unreachable_count)} rules can never fire: no input Sightline parses produces their
                logsource. They run, but stay silent whatever happens (see docs/telemetry-mapping.md).
              </Notice>
            )}
            {data.rules.length === 0 ? (
              <Empty>No rule matches these filters.</Empty>
            ) : (
              <table className="table" aria-label="Rules">
                <thead>
                  <tr>
                    <th scope="col">Rule</th>
                    <th scope="col">Level</th>
                    <th scope="col">Logsource</th>
                    <th scope="col">Techniques</th>
                  </tr>
                </thead>
                <tbody>
                  {data.rules.map((rule) => (
                    <tr key={rule.id}>
                      <td>
                        <div className="rule-title">
                          {rule.title}
                          {rule.type === 'correlation' && <Badge tone="info">Correlation</Badge>}
                          {!rule.reachable && (
                            <Badge tone="warning" title={rule.unreachable_reason ?? undefined}>
                              Unreachable
                            </Badge>
                          )}
                        </div>
                        {rule.unreachable_reason && <div className="rule-reason">{rule.unreachable_reason}</div>}
                        <div className="muted rule-file">{rule.file}</div>
                      </td>
                      <td>
                        <SeverityBadge value={rule.level} />
                      </td>
                      <td>{logsourceText(rule.logsource)}</td>
                      <td>{rule.techniques.map((technique) => technique.id).join(', ') || '—'}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            )}
            <Pager
              pager={pager}
              nextCursor={data.next_cursor}
              shown={data.rules.length}
              pageSize={PAGE_SIZE}
              total={data.total}
            />
          </>
        )}
      </QueryView>
    </>
  );
}
