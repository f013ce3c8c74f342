// "Ask": a question in plain words becomes a proposed search (POST /v1/telemetry/ask) that the
// analyst reads, may edit, and puts into the search form; nothing runs until they search.
// Offered only when the tenant's AI provider is a language model (docs/search.md).
import { useId, useState, type SubmitEvent } from 'react';
import { useMutation } from '@tanstack/react-query';
import { api, errorMessage } from '../../api/client';
import { Button, Notice } from '../../components/ui';
import { useTenant } from '../settings/tenant-queries';
import type { AskProposal } from './types';

/** Mirrors the server's bound on a question. */
const MAX_QUESTION_LENGTH = 500;

/** Whether questions can be asked: AI on for the tenant, and a language model in effect. */
export function useAskAvailable(): boolean {
  const tenant = useTenant().data;
  return tenant?.ai_summaries === 'on' && tenant.summary_provider_in_effect !== 'builtin';
}

function rangeWords(proposal: AskProposal): string {
  const at = (iso: string) => new Date(iso).toLocaleString();
  if (proposal.since && proposal.until) return `${at(proposal.since)} to ${at(proposal.until)}`;
  if (proposal.since) return `since ${at(proposal.since)}`;
  if (proposal.until) return `before ${at(proposal.until)}`;
  return 'the range already chosen';
}

function ProposalView({ proposal, onUse }: { proposal: AskProposal; onUse: (proposal: AskProposal) => void }) {
  const [editing, setEditing] = useState(false);
  const [query, setQuery] = useState(proposal.query);
  return (
    <div className="ask-proposal" aria-live="polite">
      <p>{proposal.explanation}</p>
      {editing ? (
        <input
          aria-label="Proposed query"
          className="mono"
          // Focus follows the Edit button, which this field replaces.
          autoFocus
          value={query}
          onChange={(event) => setQuery(event.target.value)}
        />
      ) : (
        <p>
          <span className="field-label">Proposed query </span>
          <code className="mono">{query || '(every record)'}</code>
        </p>
      )}
      <p className="faint">Time range: {rangeWords(proposal)}</p>
      <div className="toolbar">
        <Button variant="primary" onClick={() => onUse({ ...proposal, query })}>
          Use this search
        </Button>
        {!editing && <Button onClick={() => setEditing(true)}>Edit</Button>}
      </div>
    </div>
  );
}

export function AskPanel({ onUse }: { onUse: (proposal: AskProposal) => void }) {
  const [question, setQuestion] = useState('');
  const ask = useMutation({
    mutationFn: (text: string) => api.post<AskProposal>('/v1/telemetry/ask', { question: text }),
  });
  const submit = (event: SubmitEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (question.trim()) ask.mutate(question.trim());
  };
  const questionId = useId();
  return (
    <section className="panel ask-panel" aria-label="Ask in plain words">
      <form className="toolbar" onSubmit={submit}>
        <label htmlFor={questionId} className="field-label">
          Question
        </label>
        <input
          id={questionId}
          // The panel opens above the form, before its button in tab order: the focus comes here.
          autoFocus
          type="text"
          maxLength={MAX_QUESTION_LENGTH}
          placeholder="e.g. failed sudo on web-01 since yesterday"
          value={question}
          onChange={(event) => setQuestion(event.target.value)}
        />
        <Button type="submit" disabled={ask.isPending || !question.trim()}>
          {ask.isPending ? 'Asking…' : 'Propose a search'}
        </Button>
      </form>
      <p className="faint">
        Your question, the current time and this tenant&apos;s field names go to its AI provider; record contents never
        do. The proposal runs only when you search.
      </p>
      {ask.error && <Notice tone="danger">{errorMessage(ask.error)}</Notice>}
      {ask.data && <ProposalView key={JSON.stringify(ask.data)} proposal={ask.data} onUse={onUse} />}
    </section>
  );
}
