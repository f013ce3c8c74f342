// The summary as the API returns it, on its own route and inside cases.
import { Type } from 'typebox';
import { Timestamp } from '../http/schemas.js';
import { CASE_SUMMARY_SCHEMA_ID } from '../cases/case-context.js';
import { INACCURACY_NOTICE, SECTIONS } from './sections.js';

const summaryExample = {
  id: 'sum_7hQ2mZx9LcV4tR1wP8sK',
  text: '## Overview\nCase #42 … [obs_4Vq9TnXc2LmR8sWb1YkD]\n\n## Timeline\n…',
  sections: [{ key: 'overview', heading: 'Overview', markdown: 'Case #42 … [obs_4Vq9TnXc2LmR8sWb1YkD]' }],
  citations: [{ observation_id: 'obs_4Vq9TnXc2LmR8sWb1YkD', href: '/v1/observations/obs_4Vq9TnXc2LmR8sWb1YkD' }],
  evidence_citations: [
    { evidence_id: 'proc_1841', kind: 'process', href: '/v1/cases/case_2vPq8LmN4xR7tY1wK9sD/timeline' },
  ],
  flags: [],
  provider: 'builtin',
  model: 'sightline-builtin-1',
  is_llm: false,
  prompt_version: 'case-summary-v2',
  generated_at: '2026-11-20T10:41:00.000Z',
  requested_by: { id: 'usr_Yx2c9WmQ1pLs7dKe4TzA', label: 'ana@acme.example' },
  input_tokens: 1830,
  output_tokens: 412,
  latency_ms: 6,
  from_cache: false,
  stale: true,
  stale_reasons: ['observations_added'],
  notice: INACCURACY_NOTICE,
};

export const SummarySchema = Type.Object(
  {
    id: Type.String({ description: 'Summary id (`sum_…`); a regeneration gets a new one' }),
    text: Type.String({
      description: `Markdown in fixed sections: ${SECTIONS.map((section) => section.heading).join(', ')}. Statements cite the observations they rest on as [obs_…]; evidence statements also cite the process events ([proc_…]) and connections ([net_…]) they quote, and then exactly the observations whose triggering records those rows are.`,
    }),
    sections: Type.Array(Type.Object({ key: Type.String(), heading: Type.String(), markdown: Type.String() })),
    citations: Type.Array(
      Type.Object({ observation_id: Type.String(), href: Type.String({ description: 'The observation in this API' }) }),
      {
        description: 'Observations the text cites (all of them belong to the case)',
      },
    ),
    evidence_citations: Type.Array(
      Type.Object({
        evidence_id: Type.String({ description: '`proc_…` (a process event) or `net_…` (a connection)' }),
        kind: Type.Union([Type.Literal('process'), Type.Literal('connection')]),
        href: Type.String({ description: "The case's timeline in this API, which lists the row under this id" }),
      }),
      { description: 'Evidence rows the text cites (all of them shown to the summariser for this case)' },
    ),
    flags: Type.Array(Type.Object({ code: Type.String(), detail: Type.String() }), {
      description:
        'What the output check changed: missing_section (added, marked), unknown_section (dropped), unknown_citation (statement dropped), corrected_citation (a statement citing evidence rows now cites exactly the observations they support), empty_output',
    }),
    provider: Type.String({ description: 'builtin, openai or anthropic' }),
    model: Type.String(),
    is_llm: Type.Boolean({ description: 'false for the builtin summariser, which is not a language model' }),
    prompt_version: Type.String(),
    generated_at: Timestamp('Generated'),
    requested_by: Type.Object({
      id: Type.String({ description: 'Internal user id (or token id)' }),
      label: Type.String(),
    }),
    input_tokens: Type.Integer(),
    output_tokens: Type.Integer(),
    latency_ms: Type.Integer({ description: 'Time to produce it (a cache answer takes milliseconds)' }),
    from_cache: Type.Boolean({ description: 'Answered from the 24-hour model cache' }),
    stale: Type.Boolean({ description: 'The case changed after generation; regenerate to reflect it' }),
    stale_reasons: Type.Array(
      Type.Union([Type.Literal('observations_added'), Type.Literal('status_changed'), Type.Literal('device_changed')]),
    ),
    notice: Type.String({ description: 'Summaries can be inaccurate or invented: verify critical information' }),
  },
  // Shared by id: case responses refer to it (the cases feature does not import this one).
  { $id: CASE_SUMMARY_SCHEMA_ID, examples: [summaryExample] },
);
