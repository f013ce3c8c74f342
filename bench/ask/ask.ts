// `npm run bench:ask`: how often the configured language model turns a security question into
// the expected telemetry search. Each question of questions.json goes through the real proposal
// code (prompt, parser check, one retry) with a fixed current time and field list; a proposal
// passes when its query's parsed tree equals one expected query's (normalised: AND/OR flattened
// and ordered, full-text words in lower case, quoting that does not change the meaning ignored)
// and its time range is the expected one within five minutes. Comparing trees rather than hits
// needs no seeded records and says exactly which part differs. Not run in CI: it calls a model.
// Provider from the environment: SIGHTLINE_BENCH_PROVIDER (openai | anthropic),
// SIGHTLINE_BENCH_MODEL, SIGHTLINE_BENCH_BASE_URL (optional), SIGHTLINE_BENCH_API_KEY (optional
// for local servers). The last stdout line is one JSON object. docs/search.md, Questions in plain words.
import fs from 'node:fs';
import { performance } from 'node:perf_hooks';
import { createProvider } from '../../src/summaries/providers/index.js';
import { askModelOf } from '../../src/summaries/ask-model.js';
import { proposeQuery, type Proposal } from '../../src/telemetry/ask/query-proposal.js';
import { parseTelemetryQuery, type QueryNode } from '../../src/telemetry/telemetry-query.js';
import { AppError } from '../../src/core/errors.js';

interface Question {
  question: string;
  /** Any of these queries is a right answer. */
  expected: string[];
  since: string | null;
  until: string | null;
}
interface Suite {
  now: string;
  fields: string[];
  questions: Question[];
}

/** Times within this of the expected one agree (the model may round to the minute). */
const TIME_TOLERANCE_MS = 5 * 60_000;
/** Unquoted values that a quote would turn from a number or literal into text. */
const TYPED_VALUE = /^(-?\d+(\.\d+)?|true|false|null)$/;

function providerFromEnv() {
  const name = process.env.SIGHTLINE_BENCH_PROVIDER ?? '';
  const model = process.env.SIGHTLINE_BENCH_MODEL ?? '';
  if ((name !== 'openai' && name !== 'anthropic') || model === '') {
    console.error(
      'bench:ask needs a language model: set SIGHTLINE_BENCH_PROVIDER (openai or anthropic) and SIGHTLINE_BENCH_MODEL, and SIGHTLINE_BENCH_BASE_URL / SIGHTLINE_BENCH_API_KEY as the provider needs.',
    );
    process.exit(2);
  }
  const settings = {
    provider: name,
    baseUrl: process.env.SIGHTLINE_BENCH_BASE_URL ?? '',
    model,
    apiKey: process.env.SIGHTLINE_BENCH_API_KEY ?? '',
    timeoutMs: 60_000,
    maxRetries: 2,
  } as const;
  return createProvider(settings);
}

function normalise(node: QueryNode | undefined): unknown {
  if (!node) return null;
  switch (node.type) {
    case 'and':
    case 'or': {
      const flat = node.children.flatMap((child) => (child.type === node.type ? child.children : [child]));
      const children = [...new Set(flat.map((child) => JSON.stringify(normalise(child))))].sort();
      const [only] = children;
      return children.length === 1 && only !== undefined ? (JSON.parse(only) as unknown) : { [node.type]: children };
    }
    case 'not':
      return { not: normalise(node.child) };
    case 'text':
      return { ...node, text: node.text.toLowerCase() };
    case 'equals':
      return { ...node, quoted: node.quoted && TYPED_VALUE.test(node.value) };
    default:
      return node;
  }
}

const treeOf = (query: string) => JSON.stringify(normalise(parseTelemetryQuery(query)));

function sameTime(got: string | null, want: string | null): boolean {
  if (got === null || want === null) return got === want;
  return Math.abs(Date.parse(got) - Date.parse(want)) <= TIME_TOLERANCE_MS;
}

function grade(question: Question, proposal: Proposal) {
  const query = question.expected.map(treeOf).includes(treeOf(proposal.query));
  const range = sameTime(proposal.since, question.since) && sameTime(proposal.until, question.until);
  return { query, range };
}

async function main(): Promise<void> {
  const suite = JSON.parse(fs.readFileSync(new URL('./questions.json', import.meta.url), 'utf8')) as Suite;
  // A broken expected query is the file's fault, reported before any model call.
  for (const question of suite.questions) question.expected.forEach(treeOf);
  const provider = providerFromEnv();
  const model = askModelOf(provider);
  const now = new Date(suite.now);
  const totals = { passed: 0, query: 0, range: 0, errors: 0 };
  const times: number[] = [];
  for (const question of suite.questions) {
    const started = performance.now();
    try {
      const proposal = await proposeQuery(model, { question: question.question, fields: suite.fields, now });
      times.push(performance.now() - started);
      const { query, range } = grade(question, proposal);
      totals.query += Number(query);
      totals.range += Number(range);
      totals.passed += Number(query && range);
      const mark = query && range ? 'pass' : `FAIL${query ? '' : ' query'}${range ? '' : ' range'}`;
      console.log(
        `${mark.padEnd(16)} ${question.question}\n    got ${proposal.query}  [${proposal.since} .. ${proposal.until}]`,
      );
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
      totals.errors += 1;
      console.log(`${'ERROR'.padEnd(16)} ${question.question}\n    ${error.code}: ${error.detail}`);
    }
  }
  const n = suite.questions.length;
  const sorted = times.sort((a, b) => a - b);
  const p50 = sorted[Math.floor(sorted.length / 2)] ?? NaN;
  console.log(`\n${totals.passed}/${n} passed (${((100 * totals.passed) / n).toFixed(0)}%)`);
  console.log(
    JSON.stringify({
      provider: provider.name,
      model: provider.model,
      questions: n,
      passed: totals.passed,
      pass_rate: totals.passed / n,
      query_passed: totals.query,
      range_passed: totals.range,
      errors: totals.errors,
      p50_ms: Math.round(p50),
    }),
  );
}

await main();
