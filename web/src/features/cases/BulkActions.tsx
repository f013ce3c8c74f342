// Actions on the selected cases through PATCH /v1/cases (up to 100 at once, each with the
// version the list showed): assign, change status (only to statuses some selected case may
// take; closing asks for a resolution), add a tag. Each case succeeds or fails on its own, and
// the outcome is reported per case.
import { useState } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '../../api/client';
import { Button, ErrorState, Notice } from '../../components/ui';
import { humanize } from '../../lib/format';
import { caseKeys } from './api';
import { CloseDialog } from './CloseDialog';
import { PersonSelect, useAssignableMe } from './pickers';
import { statuses, transitions, type BulkResult, type Case, type CaseChanges, type Status } from './types';

interface Outcome {
  action: string;
  succeeded: number;
  failed: { number: number | string; code: string; detail: string }[];
}

export function BulkActions({ selected, onClear }: { selected: Case[]; onClear: () => void }) {
  const queryClient = useQueryClient();
  const me = useAssignableMe();
  const [assignee, setAssignee] = useState('');
  const [status, setStatus] = useState('');
  const [tag, setTag] = useState('');
  const [closing, setClosing] = useState(false);
  const [outcome, setOutcome] = useState<Outcome | null>(null);

  const bulk = useMutation({
    mutationFn: async ({ changes }: { action: string; changes: (item: Case) => CaseChanges | null }) => {
      const items = selected.flatMap((item) => {
        const change = changes(item);
        return change ? [{ id: item.id, version: item.version, ...change }] : [];
      });
      if (items.length === 0) return { results: [] } satisfies BulkResult;
      return api.patch<BulkResult>('/v1/cases', { cases: items });
    },
    onSuccess: (result, { action }) => {
      const byId = new Map(selected.map((item) => [item.id, item]));
      const failed = result.results
        .filter((item) => item.status !== 200)
        .map((item) => ({
          number: byId.get(item.id)?.number ?? item.id,
          code: item.error?.code ?? String(item.status),
          detail: item.error?.detail ?? 'failed',
        }));
      setOutcome({ action, succeeded: result.results.length - failed.length, failed });
      setClosing(false);
      if (failed.length === 0) onClear();
      void queryClient.invalidateQueries({ queryKey: caseKeys.all });
    },
  });

  // Statuses at least one selected case can move to.
  const reachable = statuses.filter((target) =>
    selected.some((item) => item.status !== target && transitions[item.status].includes(target)),
  );
  const movable = (target: Status) => (item: Case) =>
    item.status !== target && transitions[item.status].includes(target) ? { status: target } : null;

  const applyStatus = () => {
    if (status === 'closed') setClosing(true);
    else if (status) bulk.mutate({ action: `Status → ${humanize(status)}`, changes: movable(status as Status) });
  };

  const report = outcome && (
    <Notice tone={outcome.failed.length === 0 ? 'success' : 'warning'}>
      {outcome.action}: {outcome.succeeded} case{outcome.succeeded === 1 ? '' : 's'} updated
      {outcome.failed.length > 0 && `, ${outcome.failed.length} not`}.
      {outcome.failed.length > 0 && (
        <ul className="bulk-failures">
          {outcome.failed.map((failure) => (
            <li key={String(failure.number)}>
              #{failure.number}: {failure.detail} <code>{failure.code}</code>
            </li>
          ))}
        </ul>
      )}
      <Button small variant="ghost" onClick={() => setOutcome(null)} aria-label="Dismiss">
        ×
      </Button>
    </Notice>
  );
  // The report outlives the selection (a fully successful update clears it).
  if (selected.length === 0) return report;

  return (
    <>
      {report}
      <div className="bulk-bar" role="region" aria-label="Bulk actions">
        <strong>{selected.length} selected</strong>
        <div className="bulk-action">
          <PersonSelect
            label="Assign selected to"
            hideLabel
            value={assignee}
            anyLabel="Assign to…"
            withMe
            onChange={setAssignee}
          />
          <Button
            small
            disabled={assignee === '' || bulk.isPending}
            onClick={() => {
              const to = assignee === 'none' ? null : assignee === 'me' ? me : assignee;
              bulk.mutate({ action: to === null ? 'Unassign' : 'Assign', changes: () => ({ assignee: to }) });
            }}
          >
            Assign
          </Button>
        </div>
        <div className="bulk-action">
          <label className="picker">
            <span className="visually-hidden">Set status of selected</span>
            <select
              aria-label="Set status of selected"
              value={status}
              onChange={(event) => setStatus(event.target.value)}
            >
              <option value="">Set status…</option>
              {reachable.map((target) => (
                <option key={target} value={target}>
                  {target === 'closed' ? 'Closed…' : humanize(target)}
                </option>
              ))}
            </select>
          </label>
          <Button small disabled={status === '' || bulk.isPending} onClick={applyStatus}>
            Apply
          </Button>
        </div>
        <div className="bulk-action">
          <input
            type="text"
            aria-label="Tag to add to selected"
            placeholder="Tag"
            size={10}
            value={tag}
            onChange={(event) => setTag(event.target.value)}
          />
          <Button
            small
            disabled={!/^[^\s,]{1,64}$/.test(tag.trim()) || bulk.isPending}
            onClick={() => {
              const added = tag.trim().toLowerCase();
              bulk.mutate({
                action: `Tag "${added}"`,
                changes: (item) => (item.tags.includes(added) ? null : { tags: [...item.tags, added] }),
              });
              setTag('');
            }}
          >
            Add tag
          </Button>
        </div>
        <Button small variant="ghost" onClick={onClear}>
          Clear selection
        </Button>
        {bulk.isError && <ErrorState error={bulk.error} title="The bulk update failed" />}
        {closing && (
          <CloseDialog
            title={`Close ${selected.filter((item) => transitions[item.status].includes('closed')).length} cases`}
            // The list does not hold tasks: a case with required tasks open is answered 409 in the results.
            openRequired={[]}
            pending={bulk.isPending}
            error={bulk.error}
            onClose={() => setClosing(false)}
            onSubmit={(close) =>
              bulk.mutate({
                action: 'Close',
                changes: (item) =>
                  transitions[item.status].includes('closed') ? { status: 'closed', ...close } : null,
              })
            }
          />
        )}
      </div>
    </>
  );
}
