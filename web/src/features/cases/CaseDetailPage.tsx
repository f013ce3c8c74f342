// One case (/cases/:caseId, by id or number): header with the status control (only the
// transitions the workflow allows; closing asks for a resolution), merging and the report, the
// AI summary, the description, its tasks, the investigation (process tree, timeline), the
// observables with similar cases, the observations with evidence, comments and history; facts,
// SLA clocks, devices, dates and techniques at the side. Keys: c comment, a assign to me, s status.
import { useMemo, useRef, useState } from 'react';
import { Link, useParams } from 'react-router';
import { ApiError } from '../../api/client';
import { useSession } from '../../app/session';
import { ScoreMeter, SeverityBadge, StatusBadge } from '../../components/badges';
import { QueryView } from '../../components/QueryView';
import { Button, Empty, ErrorState, KeyHints, Notice, PageHeader, Panel, Time } from '../../components/ui';
import { useHotkeys } from '../../lib/hotkeys';
import { humanize } from '../../lib/format';
import { SummaryPanel } from '../summaries/SummaryPanel';
import { CaseResponseActions } from '../devices/ResponseActions';
import { useCase } from './api';
import { useCaseUpdate, type CaseUpdate } from './case-update';
import { CaseDates, CaseFacts, DeviceList, TechniqueList } from './CaseSidebar';
import { CloseDialog } from './CloseDialog';
import { Comments } from './Comments';
import { History } from './History';
import { InvestigationPanel, type InvestigationTab } from './InvestigationPanel';
import { Markdown } from './Markdown';
import { MergeDialog } from './MergeDialog';
import { ObservationTimeline } from './ObservationTimeline';
import { SlaPanel } from './SlaPanel';
import { TasksPanel } from './TasksPanel';
import { ObservablesPanel } from './ObservablesPanel';
import { CaseReportActions } from './CaseReportActions';
import { useAssignableMe } from './pickers';
import { transitions, type CaseDetail, type Status } from './types';
import './cases.css';
import './case-detail.css';

const levelOrder = ['informational', 'low', 'medium', 'high', 'critical'];
const criticalityOrder = ['low', 'medium', 'high', 'critical'];

/** What the score is made of (the formula is in the API reference), for the hover text. */
function scoreExplanation(detail: CaseDetail): string {
  const top = detail.observations.reduce(
    (best, o) => (levelOrder.indexOf(o.level) > levelOrder.indexOf(best) ? o.level : best),
    'informational',
  );
  const critical = detail.devices.reduce(
    (best, d) => (criticalityOrder.indexOf(d.criticality) > criticalityOrder.indexOf(best) ? d.criticality : best),
    detail.devices.length ? 'low' : 'medium',
  );
  return [
    `Score ${detail.score} of 100 = round((level + volume + breadth) × criticality)`,
    `level: highest observation level ${top}`,
    `volume: ${detail.observation_count} observation(s)`,
    `breadth: ${detail.tactics.length} distinct ATT&CK tactic(s)`,
    `criticality: most critical device ${critical}`,
  ].join('\n');
}

function transitionLabel(from: Status, to: Status): string {
  if (to === 'closed') return 'Close…';
  if (to === 'on_hold') return 'Put on hold';
  if (from === 'new') return 'Start work';
  if (from === 'closed') return 'Reopen';
  return 'Resume';
}

function StatusControl({
  detail,
  edit,
  onClose,
  canWrite,
}: {
  detail: CaseDetail;
  edit: CaseUpdate;
  onClose: () => void;
  canWrite: boolean;
}) {
  if (!canWrite) return null;
  // A merged case stays closed: work continues on the case it was merged into.
  const allowed = detail.merged_into ? [] : transitions[detail.status];
  if (allowed.length === 0) return null;
  return (
    <div className="status-control" role="group" aria-label="Change status">
      {allowed.map((to, index) => (
        <Button
          key={to}
          variant={to === 'closed' ? 'primary' : 'secondary'}
          data-status-action={index === 0 ? 'first' : undefined}
          aria-label={to === 'closed' ? 'Close case' : `${transitionLabel(detail.status, to)} (status ${humanize(to)})`}
          disabled={edit.pending}
          onClick={() => (to === 'closed' ? onClose() : edit.update({ status: to }))}
        >
          {transitionLabel(detail.status, to)}
        </Button>
      ))}
    </div>
  );
}

/** The generated description; a long one folds to its first lines. */
function Description({ text }: { text: string }) {
  const long = text.split('\n').length > 9;
  const [folded, setFolded] = useState(long);
  return (
    <Panel
      title="Description"
      actions={
        long && (
          <Button small variant="ghost" aria-expanded={!folded} onClick={() => setFolded((f) => !f)}>
            {folded ? 'Show all' : 'Show less'}
          </Button>
        )
      }
    >
      <div className={folded ? 'description-folded' : undefined}>
        <Markdown source={text} />
      </div>
    </Panel>
  );
}

function CaseView({ detail, caseRef }: { detail: CaseDetail; caseRef: string }) {
  const { can } = useSession();
  const canWrite = can('cases:write');
  const me = useAssignableMe();
  const edit = useCaseUpdate(detail, caseRef);
  const [closing, setClosing] = useState(false);
  const [expanded, setExpanded] = useState<Set<string>>(new Set());
  const [highlighted, setHighlighted] = useState<string | null>(null);
  const [tab, setTab] = useState<InvestigationTab>('tree');
  const [evidence, setEvidence] = useState<string | null>(null);
  const [merging, setMerging] = useState(false);
  const investigation = useRef<HTMLDivElement>(null);
  const commentBox = useRef<HTMLTextAreaElement>(null);

  const observationIndex = useMemo(
    () =>
      new Map(
        detail.observations.map((observation, index) => [
          observation.id,
          { position: index + 1, title: observation.rule.title },
        ]),
      ),
    [detail.observations],
  );
  const toggle = (id: string) =>
    setExpanded((current) => {
      const next = new Set(current);
      if (next.has(id)) next.delete(id);
      else next.add(id);
      return next;
    });
  const cite = (id: string) => {
    setExpanded((current) => new Set(current).add(id));
    setHighlighted(null);
    window.requestAnimationFrame(() => setHighlighted(id));
  };

  const citeEvidence = (id: string) => {
    setTab('timeline');
    setEvidence(null);
    investigation.current?.scrollIntoView({ block: 'start', behavior: 'smooth' });
    window.requestAnimationFrame(() => setEvidence(id));
  };

  useHotkeys({
    c: () => commentBox.current?.focus(),
    a: () => {
      if (canWrite && me && detail.assignee?.id !== me && !edit.pending) edit.update({ assignee: me });
    },
    s: () => document.querySelector<HTMLButtonElement>('[data-status-action="first"]')?.focus(),
  });

  return (
    <>
      <header className="case-header">
        <div className="case-header-top">
          <Link to="/cases" className="back-link">
            ← Cases
          </Link>
          <span className="case-number mono">#{detail.number}</span>
          <SeverityBadge value={detail.severity} />
          <span title={scoreExplanation(detail)} className="case-score">
            <ScoreMeter score={detail.score} />
          </span>
          <StatusBadge value={detail.status} />
          {detail.resolution && <span className="muted">{humanize(detail.resolution)}</span>}
          <span className="case-header-spacer" />
          <StatusControl detail={detail} edit={edit} canWrite={canWrite} onClose={() => setClosing(true)} />
          {canWrite && detail.status !== 'closed' && !detail.merged_into && (
            <Button variant="secondary" onClick={() => setMerging(true)}>
              Merge cases…
            </Button>
          )}
          <CaseReportActions caseId={detail.id} number={detail.number} />
        </div>
        <h1 className="case-title">{detail.title}</h1>
        <p className="case-subtitle muted">
          {detail.observation_count} observation{detail.observation_count === 1 ? '' : 's'} ·{' '}
          {detail.devices.map((d) => d.host_name).join(', ') || 'no device'} · created <Time iso={detail.created_at} />{' '}
          · updated <Time iso={detail.updated_at} />
          {detail.assignee ? ` · assigned to ${detail.assignee.name}` : ' · unassigned'}
        </p>
        {detail.merged_into && (
          <Notice tone="info">
            Merged into{' '}
            <Link to={`/cases/${detail.merge.into?.number ?? detail.merged_into}`}>
              case #{detail.merge.into?.number ?? '?'}
            </Link>
            , which holds its observations, devices, techniques and tags now; work continues there.
          </Notice>
        )}
        {detail.merge.from.length > 0 && (
          <p className="case-merged-from muted">
            Merged from{' '}
            {detail.merge.from.map((source, index) => (
              <span key={source.id}>
                {index > 0 && ', '}
                <Link to={`/cases/${source.number}`}>case #{source.number}</Link>
              </span>
            ))}
            .
          </p>
        )}
        {edit.conflict && (
          <Notice tone="warning">
            <strong>Someone else changed this case while you had it open</strong>
            {edit.conflict.to === null
              ? ` (it is no longer version ${edit.conflict.from}). Your change was not applied, and reloading the case failed: ${edit.conflict.reloadError ?? 'unknown error'}.`
              : ` (version ${edit.conflict.from} → ${edit.conflict.to}). It has been reloaded and your change was not applied; check it and try again.`}
            {edit.conflict.changes.length > 0 && (
              <ul className="conflict-changes">
                {edit.conflict.changes.map((change) => (
                  <li key={change}>{change}</li>
                ))}
              </ul>
            )}
            <Button small variant="ghost" onClick={edit.reset}>
              Dismiss
            </Button>
          </Notice>
        )}
        {Boolean(edit.error) && !closing && (
          <div>
            <ErrorState error={edit.error} title="The change was not saved" />
            <Button small variant="ghost" onClick={edit.reset}>
              Dismiss
            </Button>
          </div>
        )}
      </header>

      <div className="grid grid-sidebar case-layout">
        <div className="case-main">
          <SummaryPanel
            detail={detail}
            caseRef={caseRef}
            observationIndex={observationIndex}
            onCite={cite}
            onCiteEvidence={citeEvidence}
          />
          <Description text={detail.description} />
          <TasksPanel detail={detail} canWrite={canWrite} />
          <div ref={investigation}>
            <InvestigationPanel
              caseId={detail.id}
              lookup={{ observationIndex, onCite: cite }}
              tab={tab}
              onTab={setTab}
              highlighted={evidence}
            />
          </div>
          <ObservablesPanel caseId={detail.id} since={detail.first_observation_at} />
          <Panel title={`Observations (${detail.observation_count})`}>
            <ObservationTimeline
              observations={detail.observations}
              total={detail.observation_count}
              expanded={expanded}
              highlighted={highlighted}
              onToggle={toggle}
            />
          </Panel>
          <Panel title="Comments">
            <Comments caseId={detail.id} canWrite={canWrite} ref={commentBox} />
          </Panel>
          <Panel title="History">
            <History caseId={detail.id} observationIndex={observationIndex} onCite={cite} />
          </Panel>
        </div>
        <aside className="case-side" aria-label="Case facts">
          <CaseFacts detail={detail} edit={edit} canWrite={canWrite} />
          <SlaPanel detail={detail} />
          <Panel title={`Devices (${detail.devices.length})`} className="case-devices">
            <DeviceList devices={detail.devices} />
          </Panel>
          <CaseResponseActions caseId={detail.id} devices={detail.devices} />
          <CaseDates detail={detail} />
          <Panel title={`ATT&CK techniques (${detail.techniques.length})`}>
            <TechniqueList techniques={detail.techniques} />
          </Panel>
          {canWrite && (
            <KeyHints
              keys={[
                ['c', 'comment'],
                ['a', 'assign to me'],
                ['s', 'status'],
              ]}
            />
          )}
        </aside>
      </div>

      {merging && <MergeDialog detail={detail} onClose={() => setMerging(false)} />}
      {closing && (
        <CloseDialog
          title={`Close case #${detail.number}`}
          openRequired={detail.tasks
            .filter((task) => task.required && task.status !== 'done' && task.status !== 'not_applicable')
            .map((task) => task.title)}
          pending={edit.pending}
          error={edit.error}
          onClose={() => {
            setClosing(false);
            edit.reset();
          }}
          onSubmit={(close) => {
            edit.updateAsync({ status: 'closed', ...close }).then(
              () => setClosing(false),
              (error: unknown) => {
                // A conflict reloads the case and explains itself on the page; other errors show in the dialog.
                if (error instanceof ApiError && error.code === 'version_conflict') setClosing(false);
              },
            );
          }}
        />
      )}
    </>
  );
}

export default function CaseDetailPage() {
  const { caseId = '' } = useParams();
  const found = useCase(caseId);
  const notFound = (
    <>
      <PageHeader trail={[{ label: 'Cases', to: '/cases' }]} title="Case not found" />
      <Empty>There is no case {/^\d+$/.test(caseId) ? `#${caseId}` : caseId} in this tenant.</Empty>
    </>
  );
  return (
    <QueryView query={found} loading="Loading the case" error="Could not load the case" notFound={notFound}>
      {(detail) => <CaseView detail={detail} caseRef={caseId} />}
    </QueryView>
  );
}
