// Merging other cases into this one: pick open cases (searched by number, title, host or tag),
// preview what moves and what happens to them, then confirm. POST /v1/cases/merge does the work;
// the sources close as duplicates and both sides record the merge in their history.
import { useState } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '../../api/client';
import { Dialog, DialogActions } from '../../components/Dialog';
import { DebouncedInput } from '../../components/DebouncedInput';
import { SeverityBadge, StatusBadge } from '../../components/badges';
import { Button, ErrorState } from '../../components/ui';
import { caseKeys, useCaseSearch } from './api';
import type { Case, CaseDetail } from './types';
import './investigation.css';

const OPEN = ['new', 'in_progress', 'on_hold'];

export function MergeDialog({ detail, onClose }: { detail: CaseDetail; onClose: () => void }) {
  const queryClient = useQueryClient();
  const [text, setText] = useState('');
  const [chosen, setChosen] = useState<Map<string, Case>>(new Map());
  const [step, setStep] = useState<'pick' | 'preview'>('pick');
  const found = useCaseSearch({ status: OPEN, limit: 25, track_total: false, ...(text ? { text } : {}) });
  const candidates = (found.data?.cases ?? []).filter((item) => item.id !== detail.id && !item.merged_into);
  const merge = useMutation({
    mutationFn: () => api.post<Case>('/v1/cases/merge', { target: detail.id, sources: [...chosen.keys()] }),
    onSuccess: () => {
      void queryClient.invalidateQueries({ queryKey: caseKeys.all });
      onClose();
    },
  });
  const sources = [...chosen.values()];
  const toggle = (item: Case) =>
    setChosen((current) => {
      const next = new Map(current);
      if (next.has(item.id)) next.delete(item.id);
      else next.set(item.id, item);
      return next;
    });
  const moved = sources.reduce((sum, item) => sum + item.observation_count, 0);
  const hosts = [
    ...new Set([...detail.devices, ...sources.flatMap((item) => item.devices)].map((device) => device.host_name)),
  ].sort();

  const footer =
    step === 'pick' ? (
      <DialogActions
        onCancel={onClose}
        label={`Preview merge of ${sources.length} case${sources.length === 1 ? '' : 's'}`}
        disabled={sources.length === 0}
        onConfirm={() => setStep('preview')}
      />
    ) : (
      <>
        <Button onClick={() => setStep('pick')} disabled={merge.isPending}>
          Back
        </Button>
        <DialogActions
          onCancel={onClose}
          label={merge.isPending ? 'Merging…' : `Merge into case #${detail.number}`}
          disabled={merge.isPending}
          onConfirm={() => merge.mutate()}
        />
      </>
    );

  return (
    <Dialog title={`Merge cases into case #${detail.number}`} onClose={onClose} footer={footer} wide>
      {step === 'pick' ? (
        <div className="merge-pick">
          <label className="field">
            <span className="field-label">Find open cases</span>
            <DebouncedInput
              type="search"
              value={text}
              onSettle={setText}
              placeholder="Number, title, host or tag"
              autoFocus
            />
          </label>
          {Boolean(found.error) && <ErrorState error={found.error} title="Could not search the cases" />}
          {candidates.length === 0 && !found.isPending ? (
            <p className="muted">No other open case matches.</p>
          ) : (
            <ul className="merge-candidates" aria-label="Cases to merge">
              {candidates.map((item) => (
                <li key={item.id}>
                  <label className="merge-candidate">
                    <input type="checkbox" checked={chosen.has(item.id)} onChange={() => toggle(item)} />
                    <span className="mono">#{item.number}</span>
                    <SeverityBadge value={item.severity} />
                    <StatusBadge value={item.status} />
                    <span className="merge-candidate-title">{item.title}</span>
                    <span className="faint">
                      {item.observation_count} observation{item.observation_count === 1 ? '' : 's'}
                    </span>
                  </label>
                </li>
              ))}
            </ul>
          )}
        </div>
      ) : (
        <div className="merge-preview" aria-label="Merge preview">
          {Boolean(merge.error) && <ErrorState error={merge.error} title="The cases were not merged" />}
          <p>
            Case <strong>#{detail.number}</strong> ({detail.title}) stays open and receives:
          </p>
          <ul>
            <li>
              {moved} observation{moved === 1 ? '' : 's'} from {sources.map((item) => `#${item.number}`).join(', ')},
              for {detail.observation_count + moved} in all
            </li>
            <li>their devices, techniques and tags; devices afterwards: {hosts.join(', ') || 'none'}</li>
          </ul>
          <p>
            {sources.map((item) => `#${item.number}`).join(', ')} will be closed as <strong>duplicate</strong>, each
            noting that it was merged into case #{detail.number}. The score is recomputed. A merge cannot be undone.
          </p>
        </div>
      )}
    </Dialog>
  );
}
