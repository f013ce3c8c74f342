// The proposal check and its one retry, without a server: what a model's answer must be to reach
// the analyst, and that the second prompt carries the reason the first answer was refused.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AppError } from '../../core/errors.js';
import { checkProposal, proposeQuery } from './query-proposal.js';
import type { AskModel, AskPrompt } from './ask-model.js';

const ask = { question: 'failed sudo', fields: ['host', 'program'], now: new Date('2026-11-22T12:00:00Z') };

function scripted(answers: string[]): AskModel & { prompts: AskPrompt[] } {
  const prompts: AskPrompt[] = [];
  return { prompts, complete: (prompt) => (prompts.push(prompt), Promise.resolve(answers.shift() ?? '')) };
}

test('an answer in a code fence is read; times become UTC with Z', () => {
  const checked = checkProposal(
    '```json\n{"query":"program:sudo","since":"2026-11-21T01:00:00+01:00","until":null,"explanation":"x"}\n```',
  );
  assert.deepEqual(checked, {
    proposal: { query: 'program:sudo', since: '2026-11-21T00:00:00.000Z', until: null, explanation: 'x' },
  });
});

test('unparsable queries, zone-less or unordered times and non-JSON are refused with a reason', () => {
  assert.match(JSON.stringify(checkProposal('{"query":"(a"}')), /expected/);
  assert.match(JSON.stringify(checkProposal('{"query":"a","since":"2026-11-21"}')), /ISO 8601/);
  assert.match(
    JSON.stringify(checkProposal('{"query":"a","since":"2026-11-22T00:00:00Z","until":"2026-11-21T00:00:00Z"}')),
    /earlier/,
  );
  assert.match(JSON.stringify(checkProposal('sure!')), /not a JSON object/);
});

test('one retry with the reason, then question_not_understood', async () => {
  const model = scripted(['{"query":"host:(a"}', '{"query":"host:web-01"}']);
  assert.equal((await proposeQuery(model, ask)).query, 'host:web-01');
  assert.match(model.prompts[1]?.user ?? '', /<problem>.*expected/);
  const failing = scripted(['nope', 'still nope']);
  await assert.rejects(
    proposeQuery(failing, ask),
    (error) => error instanceof AppError && error.code === 'question_not_understood',
  );
  assert.equal(failing.prompts.length, 2);
});
