// The AI summary of a case: generated only when someone asks (Generate / Regenerate), shown in
// its fixed sections with cited observations linking into the timeline, who made it with which
// model and when, a stale badge with the reasons once the case moved on, the standing notice
// that it can be wrong, and thumbs up / down (down with an optional comment). A tenant that
// opted out sees a plain note instead.
import { useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, ApiError } from '../../api/client';
import { useSession } from '../../app/session';
import { Badge, Button, ErrorState, Notice, Panel, Spinner, Time } from '../../components/ui';
import { caseKeys } from '../cases/api';
import { Markdown } from '../cases/Markdown';
import type { CaseDetail, Summary, SummaryRating } from '../cases/types';
import { ThumbIcon } from './ThumbIcon';
import './summaries.css';

const isEvidenceId = (id: string) => id.startsWith('proc_') || id.startsWith('net_');

const staleLabels: Record<Summary['stale_reasons'][number], string> = {
  observations_added: 'new observations',
  status_changed: 'status changed',
  device_changed: 'device details changed',
};

function OptedOut() {
  return (
    <Notice tone="info">
      <strong>AI summaries are turned off for this organisation.</strong> Its account manager or support can turn them
      back on; everything else about the case works as usual.
    </Notice>
  );
}

function Rating({ summary, caseId }: { summary: Summary; caseId: string }) {
  const { can } = useSession();
  const queryClient = useQueryClient();
  const feedbackPath = `/v1/cases/${caseId}/summary/feedback`;
  // Keyed by summary: a regenerated summary starts unrated.
  const ratingKey = ['summaries', 'own-rating', summary.id];
  const own = useQuery({
    queryKey: ratingKey,
    queryFn: () => api.get<SummaryRating>(feedbackPath),
    enabled: can('summaries:read'),
  });
  const current = own.data?.rating ? own.data : null;
  const [asking, setAsking] = useState(false);
  const [comment, setComment] = useState('');
  const rate = useMutation({
    mutationFn: (body: { rating: 'up' | 'down'; comment?: string }) => api.post<SummaryRating>(feedbackPath, body),
    onSuccess: (saved) => {
      queryClient.setQueryData(ratingKey, saved);
      setAsking(false);
      setComment('');
    },
  });
  if (!can('summaries:write')) return null;
  const sendDown = () => {
    const text = comment.trim();
    rate.mutate({ rating: 'down', ...(text ? { comment: text } : {}) });
  };
  return (
    <div className="summary-rating">
      <div className="toolbar">
        <span className="muted">Was this summary useful?</span>
        <Button
          small
          aria-label="Thumbs up"
          aria-pressed={current?.rating === 'up'}
          disabled={rate.isPending}
          onClick={() => rate.mutate({ rating: 'up' })}
        >
          <ThumbIcon direction="up" />
        </Button>
        <Button
          small
          aria-label="Thumbs down"
          aria-pressed={current?.rating === 'down' || asking}
          disabled={rate.isPending}
          onClick={() => setAsking(true)}
        >
          <ThumbIcon direction="down" />
        </Button>
        {current && !asking && (
          <span className="muted summary-rated" role="status">
            You rated it thumbs {current.rating}
            {current.comment ? `: “${current.comment}”` : ''}{' '}
            {current.rated_at && (
              <>
                (<Time iso={current.rated_at} />)
              </>
            )}
            .
          </span>
        )}
      </div>
      {asking && (
        <form
          className="summary-feedback-form"
          onSubmit={(event) => {
            event.preventDefault();
            sendDown();
          }}
        >
          <label className="field">
            <span className="field-label">What was wrong? (optional)</span>
            <textarea
              rows={3}
              maxLength={2_000}
              value={comment}
              autoFocus
              onChange={(event) => setComment(event.target.value)}
              placeholder="Missing or invented facts, wrong emphasis…"
            />
          </label>
          <div className="toolbar">
            <Button variant="primary" small type="submit" disabled={rate.isPending}>
              Send feedback
            </Button>
            <Button small onClick={() => setAsking(false)}>
              Cancel
            </Button>
          </div>
        </form>
      )}
      {rate.isError && <ErrorState error={rate.error} title="The rating was not saved" />}
    </div>
  );
}

export function SummaryPanel({
  detail,
  caseRef,
  observationIndex,
  onCite,
  onCiteEvidence,
}: {
  detail: CaseDetail;
  /** The key the page loaded the case under (id or number). */
  caseRef: string;
  /** Observation id → its 1-based position in the timeline. */
  observationIndex: ReadonlyMap<string, { position: number; title: string }>;
  onCite: (observationId: string) => void;
  /** A cited evidence row (`proc_…`, `net_…`): shown in the investigation timeline. */
  onCiteEvidence: (evidenceId: string) => void;
}) {
  const { can } = useSession();
  const queryClient = useQueryClient();
  const generate = useMutation({
    mutationFn: () => api.post<Summary>(`/v1/cases/${detail.id}/summary`),
    onSuccess: (summary) => {
      queryClient.setQueryData<CaseDetail>(caseKeys.detail(caseRef), (old) => (old ? { ...old, summary } : old));
      void queryClient.invalidateQueries({ queryKey: caseKeys.all });
    },
  });
  const summary = detail.summary;
  const disabledError =
    generate.error instanceof ApiError && generate.error.code === 'ai_summaries_disabled' ? generate.error : null;
  const unavailable =
    detail.summary_unavailable ?? (disabledError ? { code: disabledError.code, detail: disabledError.detail } : null);
  const canGenerate = can('summaries:write') && !unavailable;

  const citation = (id: string) => {
    if (isEvidenceId(id))
      return (
        <a
          href={`#ev-${id}`}
          className="citation citation-evidence"
          title={`Evidence ${id} in the investigation timeline`}
          onClick={(event) => {
            event.preventDefault();
            onCiteEvidence(id);
          }}
        >
          {id.startsWith('proc_') ? 'process' : 'connection'}
        </a>
      );
    const known = observationIndex.get(id);
    return (
      <a
        href={`#obs-${id}`}
        className="citation"
        title={known ? `Observation ${known.position}: ${known.title} (${id})` : id}
        onClick={(event) => {
          event.preventDefault();
          onCite(id);
        }}
      >
        {known ? known.position : id}
      </a>
    );
  };

  const actions = canGenerate ? (
    <Button
      variant={!summary || summary.stale ? 'primary' : 'secondary'}
      small={Boolean(summary)}
      disabled={generate.isPending}
      onClick={() => generate.mutate()}
    >
      {generate.isPending ? (
        <>
          <Spinner label="Generating summary" /> Generating…
        </>
      ) : summary ? (
        'Regenerate'
      ) : (
        'Generate summary'
      )}
    </Button>
  ) : undefined;

  return (
    <Panel
      className="summary-panel"
      title={
        <>
          AI summary{' '}
          {summary?.stale && (
            <Badge tone="warning" title="The case changed after this summary was generated; regenerate to reflect it">
              Stale: {summary.stale_reasons.map((reason) => staleLabels[reason]).join(', ')}
            </Badge>
          )}
        </>
      }
      actions={actions}
    >
      <div aria-busy={generate.isPending}>
        {unavailable ? (
          <OptedOut />
        ) : generate.isError ? (
          <ErrorState
            error={generate.error}
            retry={() => generate.mutate()}
            title="The summary could not be generated"
          />
        ) : null}
        {!summary && !unavailable && (
          <p className="muted">
            {canGenerate
              ? 'No summary yet. Generating one sends this case’s data (no names, emails, comments or tags) to the configured summariser; it can take a few seconds.'
              : 'No summary has been generated for this case. Generating one needs the permission summaries:write.'}
          </p>
        )}
        {summary && !unavailable && (
          <>
            <Notice tone="warning">
              <strong>AI-generated.</strong> {summary.notice}
            </Notice>
            <div className="summary-meta">
              <span>
                {summary.provider} · <span className="mono">{summary.model}</span>
                {!summary.is_llm && <span className="faint"> (builtin summariser, not a language model)</span>}
              </span>
              <span>
                generated <Time iso={summary.generated_at} /> by {summary.requested_by.label}
              </span>
              {summary.from_cache && (
                <Badge tone="neutral" title="Answered from the 24-hour model cache">
                  cached
                </Badge>
              )}
            </div>
            <div className="summary-sections">
              {summary.sections.map((section) => (
                <section key={section.key} className="summary-section" aria-label={section.heading}>
                  <h3>{section.heading}</h3>
                  <Markdown source={section.markdown} citation={citation} headingOffset={3} />
                </section>
              ))}
            </div>
            {summary.flags.length > 0 && (
              <details className="summary-flags">
                <summary>The output check changed {summary.flags.length} thing(s)</summary>
                <ul>
                  {summary.flags.map((flag, index) => (
                    <li key={index}>
                      <code>{flag.code}</code> {flag.detail}
                    </li>
                  ))}
                </ul>
              </details>
            )}
            <Rating key={summary.id} summary={summary} caseId={detail.id} />
          </>
        )}
      </div>
    </Panel>
  );
}
