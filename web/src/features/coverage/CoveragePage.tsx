// ATT&CK coverage: the bundled catalogue as a matrix (tactics as columns in matrix order), each
// technique marked live, silent or uncovered by the loaded rules and the logsources the tenant's
// telemetry produced lately (docs/detection.md, ATT&CK coverage); a technique's rules on click; the
// Navigator layer as a download. Status shows as a mark and words as well as a colour.
import { useMemo, useState } from 'react';
import { errorMessage } from '../../api/client';
import { QueryView } from '../../components/QueryView';
import { ToggleGroup } from '../../components/ToggleGroup';
import { Button, Field, Notice, PageHeader, Panel } from '../../components/ui';
import {
  downloadNavigatorLayer,
  STATUSES,
  useCoverage,
  type AttackCoverage,
  type CoverageStatus,
  type TechniqueCoverage,
} from './api';
import { StatusMark, STATUS_TEXT, TechniqueDialog } from './TechniqueDialog';
import './coverage.css';

export default function CoveragePage() {
  const coverage = useCoverage();
  const [download, setDownload] = useState<{ error?: string; saved?: string }>({});
  const save = () => {
    setDownload({});
    downloadNavigatorLayer().then(
      (saved) => setDownload({ saved }),
      (error: unknown) => setDownload({ error: errorMessage(error) }),
    );
  };
  return (
    <>
      <PageHeader
        title="ATT&CK coverage"
        subtitle="Which MITRE ATT&CK techniques the loaded rules cover, and whether your telemetry feeds them."
        actions={<Button onClick={save}>Download Navigator layer</Button>}
      />
      {download.error && <Notice tone="danger">Could not download the layer: {download.error}</Notice>}
      {download.saved && <Notice tone="success">Saved {download.saved}: open it in the ATT&CK Navigator.</Notice>}
      <QueryView query={coverage} loading="Loading coverage" error="Could not load coverage">
        {(data) => <Coverage coverage={data} />}
      </QueryView>
    </>
  );
}

function Coverage({ coverage }: { coverage: AttackCoverage }) {
  const [statuses, setStatuses] = useState('');
  const [text, setText] = useState('');
  const [openId, setOpenId] = useState<string | null>(null);
  const byId = useMemo(() => new Map(coverage.techniques.map((item) => [item.id, item])), [coverage]);
  const chosen = new Set(statuses.split(',').filter(Boolean));
  const needle = text.trim().toLowerCase();
  const shown = (technique: TechniqueCoverage) =>
    (chosen.size === 0 || chosen.has(technique.combined_status)) &&
    (needle === '' ||
      [technique, ...technique.subtechniques.map((id) => byId.get(id))].some(
        (item) =>
          item !== undefined && (item.id.toLowerCase().startsWith(needle) || item.name.toLowerCase().includes(needle)),
      ));
  const open = openId === null ? undefined : byId.get(openId);
  const { techniques, subtechniques } = coverage.counts;
  return (
    <>
      <Panel title="Summary">
        <p className="coverage-summary" data-testid="coverage-summary">
          Techniques: {techniques.live} live, {techniques.silent} silent, {techniques.uncovered} uncovered of{' '}
          {techniques.total}. Sub-techniques: {subtechniques.live} live, {subtechniques.silent} silent,{' '}
          {subtechniques.uncovered} uncovered of {subtechniques.total}. Live means a covering rule's logsource was seen
          in the last {coverage.window.days} days (ATT&CK {coverage.attack_version}).
        </p>
        <Legend />
        <details className="coverage-seen">
          <summary>
            Logsources seen in the last {coverage.window.days} days ({coverage.logsources_seen.length})
          </summary>
          {coverage.logsources_seen.length === 0 ? (
            <p>None yet: no telemetry arrived in the window.</p>
          ) : (
            <ul>
              {coverage.logsources_seen.map((seen) => (
                <li key={`${seen.product}/${seen.category}/${seen.service}`}>
                  {[seen.product, seen.category, seen.service].filter(Boolean).join(' / ')}
                </li>
              ))}
            </ul>
          )}
        </details>
      </Panel>
      <div className="filters">
        <ToggleGroup label="Status" options={STATUSES} value={statuses} onChange={setStatuses} />
        <Field label="Technique">
          <input
            type="search"
            value={text}
            placeholder="Id or name, e.g. T1059 or shell"
            onChange={(event) => setText(event.target.value)}
          />
        </Field>
      </div>
      <div className="coverage-matrix" data-testid="coverage-matrix">
        {coverage.tactics.map((tactic) => {
          const cells = tactic.technique_ids.flatMap((id) => {
            const technique = byId.get(id);
            return technique && shown(technique) ? [technique] : [];
          });
          return (
            <section key={tactic.id} className="coverage-column" aria-labelledby={`tactic-${tactic.id}`}>
              <h2 id={`tactic-${tactic.id}`} className="coverage-tactic">
                {tactic.name}
                <span className="coverage-tactic-counts">
                  {tactic.counts.live} live · {tactic.counts.silent} silent · {tactic.counts.total} techniques
                </span>
              </h2>
              <ul className="coverage-cells">
                {cells.map((technique) => (
                  <li key={technique.id}>
                    <Cell technique={technique} onOpen={() => setOpenId(technique.id)} />
                  </li>
                ))}
                {cells.length === 0 && <li className="coverage-none">No technique matches the filters.</li>}
              </ul>
            </section>
          );
        })}
      </div>
      {open && <TechniqueDialog technique={open} byId={byId} onOpen={setOpenId} onClose={() => setOpenId(null)} />}
    </>
  );
}

function Cell({ technique, onOpen }: { technique: TechniqueCoverage; onOpen: () => void }) {
  const status: CoverageStatus = technique.combined_status;
  const rules = technique.rules.length;
  return (
    <button
      type="button"
      className={`coverage-cell coverage-${status}`}
      data-technique={technique.id}
      data-status={status}
      onClick={onOpen}
    >
      <StatusMark status={status} />
      <span className="coverage-cell-text">
        <span className="coverage-cell-id">{technique.id}</span> {technique.name}
      </span>
      <span className="visually-hidden">
        , {STATUS_TEXT[status]}
        {rules > 0 ? `, ${rules} rule${rules === 1 ? '' : 's'}` : ''}
      </span>
    </button>
  );
}

function Legend() {
  return (
    <ul className="coverage-legend" aria-label="Legend">
      {STATUSES.map((status) => (
        <li key={status} className={`coverage-legend-item coverage-${status}`}>
          <StatusMark status={status} />
          <span>
            <strong>{STATUS_TEXT[status]}</strong>: {LEGEND[status]}
          </span>
        </li>
      ))}
    </ul>
  );
}

const LEGEND: Record<CoverageStatus, string> = {
  live: "a covering rule's logsource was seen",
  silent: 'covered only by rules whose logsource was not seen: the rules cannot fire on what arrives',
  uncovered: 'no loaded rule names the technique',
};
