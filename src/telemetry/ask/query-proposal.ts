// A question in plain words becomes a proposed search: the model's answer is read as JSON, its
// query checked by the real parser and its times by the search's own rules, so the analyst is
// never shown a search that would fail. One refused answer is sent back with the reason; a
// second one is the `question_not_understood` problem.
import { AppError } from '../../core/errors.js';
import { parseTelemetryQuery } from '../telemetry-query.js';
import type { AskModel } from './ask-model.js';
import { askPrompt, retryPrompt, type AskContext } from './ask-prompt.js';

export const MAX_QUESTION_LENGTH = 500;
const MAX_EXPLANATION_LENGTH = 500;
const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/;

export interface Proposal {
  query: string;
  since: string | null;
  until: string | null;
  explanation: string;
}

type Checked = { proposal: Proposal } | { problem: string };

/** The model's first JSON object, tolerating a code fence or a sentence around it. */
function jsonOf(text: string): Record<string, unknown> | undefined {
  const start = text.indexOf('{');
  const end = text.lastIndexOf('}');
  if (start < 0 || end < start) return undefined;
  try {
    const value: unknown = JSON.parse(text.slice(start, end + 1));
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch (error) {
    if (error instanceof SyntaxError) return undefined;
    throw error;
  }
}

/** An ISO 8601 time with a zone, as UTC with `Z`; null stays null. */
function timeOf(value: unknown, name: string): { time: string | null } | { problem: string } {
  if (value === null || value === undefined) return { time: null };
  if (typeof value !== 'string' || !ISO_TIME.test(value) || Number.isNaN(Date.parse(value)))
    return { problem: `${name} must be an ISO 8601 time with a time zone (e.g. 2026-11-22T10:00:00Z) or null` };
  return { time: new Date(value).toISOString() };
}

/** The query's parser error, or undefined when it parses. */
function queryProblem(query: string): string | undefined {
  try {
    parseTelemetryQuery(query);
    return undefined;
  } catch (error) {
    if (error instanceof AppError && error.code === 'invalid_query') return error.detail;
    throw error;
  }
}

export function checkProposal(text: string): Checked {
  const answer = jsonOf(text);
  if (!answer) return { problem: 'the answer is not a JSON object' };
  if (typeof answer.query !== 'string') return { problem: 'query must be a string' };
  const query = answer.query.trim();
  const invalid = queryProblem(query);
  if (invalid) return { problem: invalid };
  const since = timeOf(answer.since, 'since');
  if ('problem' in since) return since;
  const until = timeOf(answer.until, 'until');
  if ('problem' in until) return until;
  if (since.time && until.time && since.time >= until.time) return { problem: 'since must be earlier than until' };
  const explanation = typeof answer.explanation === 'string' ? answer.explanation.trim() : '';
  return {
    proposal: {
      query,
      since: since.time,
      until: until.time,
      explanation: explanation.slice(0, MAX_EXPLANATION_LENGTH),
    },
  };
}

/** Asks the model, retrying once with the reason its first answer was refused. */
export async function proposeQuery(model: AskModel, ask: AskContext): Promise<Proposal> {
  const first = await model.complete(askPrompt(ask));
  const checked = checkProposal(first);
  if ('proposal' in checked) return checked.proposal;
  const second = checkProposal(await model.complete(retryPrompt(ask, first, checked.problem)));
  if ('proposal' in second) return second.proposal;
  throw new AppError(
    'question_not_understood',
    `the model did not propose a usable search (twice): ${second.problem}; rephrase the question or write the query`,
    { extensions: { reason: second.problem } },
  );
}
