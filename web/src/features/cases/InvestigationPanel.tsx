// The investigation view of a case: its process tree and its timeline of observations and
// evidence, as two tabs (arrow keys move between them, as the ARIA tabs pattern has it).
import { useId, type KeyboardEvent } from 'react';
import { Panel } from '../../components/ui';
import { CaseTimelineView } from './CaseTimelineView';
import type { ObservationLookup } from './ObservationRefs';
import { ProcessTreeView } from './ProcessTreeView';
import './investigation.css';

export type InvestigationTab = 'tree' | 'timeline';

const tabs: { key: InvestigationTab; label: string }[] = [
  { key: 'tree', label: 'Process tree' },
  { key: 'timeline', label: 'Timeline' },
];

export function InvestigationPanel({
  caseId,
  lookup,
  tab,
  onTab,
  highlighted,
}: {
  caseId: string;
  lookup: ObservationLookup;
  tab: InvestigationTab;
  onTab: (tab: InvestigationTab) => void;
  highlighted: string | null;
}) {
  const id = useId();
  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>) => {
    if (event.key !== 'ArrowLeft' && event.key !== 'ArrowRight') return;
    const next: InvestigationTab = tab === 'tree' ? 'timeline' : 'tree';
    onTab(next);
    document.getElementById(`${id}-tab-${next}`)?.focus();
  };
  return (
    <Panel title="Investigation" className="investigation-panel">
      <div className="tabs" role="tablist" aria-label="Investigation views" onKeyDown={onKeyDown}>
        {tabs.map((t) => (
          <button
            key={t.key}
            id={`${id}-tab-${t.key}`}
            type="button"
            role="tab"
            className="tab"
            aria-selected={tab === t.key}
            aria-controls={`${id}-panel`}
            tabIndex={tab === t.key ? 0 : -1}
            onClick={() => onTab(t.key)}
          >
            {t.label}
          </button>
        ))}
      </div>
      <div role="tabpanel" id={`${id}-panel`} aria-labelledby={`${id}-tab-${tab}`} className="investigation-body">
        {tab === 'tree' ? (
          <ProcessTreeView caseId={caseId} lookup={lookup} />
        ) : (
          <CaseTimelineView caseId={caseId} lookup={lookup} highlighted={highlighted} />
        )}
      </div>
    </Panel>
  );
}
