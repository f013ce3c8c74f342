// `sightline rules test` as an operator uses it: the real command as a child process, on the
// bundled rule pack and on broken rules.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { tempDir } from '../helpers/databases.js';
import { runCli } from '../helpers/cli.js';

// The bundled pack, as `rules test rules` reports it today; a new rule changes these on purpose.
const BUNDLED = { detection: 70, correlation: 8 };

function lines(output: string): string[] {
  return output.trimEnd().split('\n');
}

function sigmaRule(title: string, id: string, detection: string): string {
  return [
    `title: ${title}`,
    `id: ${id}`,
    'status: test',
    'logsource:',
    '  category: application',
    'detection:',
    detection,
    'level: low',
    '',
  ].join('\n');
}

/** One compilable rule and one rule per construct the compiler must refuse, each in its own file. */
function writeRuleDirectory(): string {
  const dir = tempDir('sightline-rules-');
  const files: Record<string, string> = {
    'good.yml': sigmaRule(
      'Good Rule',
      '11111111-1111-4111-8111-111111111111',
      "  selection:\n    message|contains: 'evil'\n  condition: selection",
    ),
    'unknown_modifier.yml': sigmaRule(
      'Unknown Modifier Rule',
      '22222222-2222-4222-8222-222222222222',
      "  selection:\n    message|foo: 'evil'\n  condition: selection",
    ),
    'undefined_search.yml': sigmaRule(
      'Undefined Search Rule',
      '33333333-3333-4333-8333-333333333333',
      "  selection:\n    message: 'evil'\n  condition: selection and missing_search",
    ),
    'sigma1_aggregation.yml': sigmaRule(
      'Sigma 1 Aggregation Rule',
      '44444444-4444-4444-8444-444444444444',
      "  selection:\n    message: 'evil'\n  condition: selection | count() by host > 5",
    ),
    'broken_yaml.yml': 'title: Broken YAML\ndetection: [unclosed\n  selection: {\n',
  };
  for (const [name, text] of Object.entries(files)) fs.writeFileSync(path.join(dir, name), text);
  return dir;
}

interface JsonLine {
  status?: 'loaded' | 'unreachable' | 'rejected';
  file?: string;
  id?: string;
  construct?: string;
  message?: string;
  type?: string;
  loaded?: number;
  reachable?: number;
  unreachable?: number;
  detection?: number;
  correlation?: number;
  filters?: number;
  rejected?: number;
  by_logsource?: Record<string, { loaded: number; unreachable: number }>;
}

describe('sightline rules test', () => {
  let ruleDir: string;
  before(() => {
    ruleDir = writeRuleDirectory();
  });
  after(() => fs.rmSync(ruleDir, { recursive: true, force: true }));

  test('the bundled pack compiles: one loaded line per rule, the totals, nothing rejected, exit 0', async () => {
    const result = await runCli(['rules', 'test', 'rules']);
    assert.equal(result.code, 0, result.stderr);
    const output = lines(result.stdout);
    const total = BUNDLED.detection + BUNDLED.correlation;
    assert.equal(
      output.at(-1),
      `total: ${total} loaded (${total} reachable, 0 unreachable; ${BUNDLED.detection} detection, ${BUNDLED.correlation} correlation, 0 filters applied), 0 rejected`,
    );
    const loaded = output.slice(0, -1);
    assert.equal(loaded.length, total);
    for (const line of loaded) assert.match(line, /^loaded {4}rules\/\S+\.yml {2}[0-9a-f-]{36} {2}\S/);
    assert.equal(loaded.filter((line) => line.endsWith(' (correlation)')).length, BUNDLED.correlation);
    assert.ok(!result.stdout.includes('rejected  '), 'no rule is rejected');
  });

  test('broken rules are each rejected with the file and the construct; the good one loads; exit 1', async () => {
    const result = await runCli(['rules', 'test', ruleDir]);
    assert.equal(result.code, 1, result.stderr);
    assert.match(
      result.stdout,
      new RegExp(`^loaded {4}${ruleDir}/good\\.yml {2}11111111-1111-4111-8111-111111111111 {2}Good Rule$`, 'm'),
    );
    const rejected = (file: string, reason: RegExp) =>
      assert.match(
        result.stdout,
        new RegExp(`^rejected {2}${ruleDir}/${file}: ${reason.source}`, 'm'),
        `${file} rejected for ${reason}`,
      );
    rejected('unknown_modifier\\.yml', /.*unknown value modifier 'foo' on 'message\|foo'/);
    rejected('undefined_search\\.yml', /.*condition refers to 'missing_search', which the detection does not define/);
    rejected(
      'sigma1_aggregation\\.yml',
      /.*aggregation '\| count\(\) by host > 5' \(Sigma 1\) is not supported: write a correlation rule/,
    );
    rejected('broken_yaml\\.yml', /YAML: /);
    assert.equal(
      lines(result.stdout).at(-1),
      'total: 1 loaded (1 reachable, 0 unreachable; 1 detection, 0 correlation, 0 filters applied), 4 rejected',
    );

    const quiet = await runCli(['rules', 'test', '--quiet', ruleDir]);
    assert.equal(quiet.code, 1);
    assert.doesNotMatch(quiet.stdout, /^loaded/m, '--quiet leaves out the loaded rules');
    assert.equal(quiet.stdout.match(/^rejected {2}/gm)?.length, 4);
    assert.match(lines(quiet.stdout).at(-1)!, /^total: 1 loaded .* 4 rejected$/);
  });

  test('--json prints one JSON object per line with its status, then the totals', async () => {
    const result = await runCli(['rules', 'test', '--json', ruleDir]);
    assert.equal(result.code, 1, result.stderr);
    const parsed = lines(result.stdout).map((line) => JSON.parse(line) as JsonLine);
    const totals = parsed.at(-1)!;
    assert.deepEqual(totals, {
      loaded: 1,
      reachable: 1,
      unreachable: 0,
      rejected: 4,
      detection: 1,
      correlation: 0,
      filters: 0,
      by_logsource: { '/application/': { loaded: 1, unreachable: 0 } },
    });
    const rules = parsed.slice(0, -1);
    assert.ok(rules.every((line) => line.status === 'loaded' || line.status === 'rejected'));
    const byFile = new Map(rules.map((line) => [path.basename(line.file ?? ''), line]));
    assert.equal(byFile.size, 5);
    assert.deepEqual(
      { status: byFile.get('good.yml')?.status, type: byFile.get('good.yml')?.type, id: byFile.get('good.yml')?.id },
      { status: 'loaded', type: 'detection', id: '11111111-1111-4111-8111-111111111111' },
    );
    const constructs = Object.fromEntries(
      rules.filter((line) => line.status === 'rejected').map((line) => [path.basename(line.file!), line.construct]),
    );
    assert.deepEqual(constructs, {
      'unknown_modifier.yml': "modifier 'foo'",
      'undefined_search.yml': 'detection.condition',
      'sigma1_aggregation.yml': 'detection.condition',
      'broken_yaml.yml': 'yaml',
    });
    for (const line of rules.filter((entry) => entry.status === 'rejected'))
      assert.ok(line.message?.includes(line.file!), 'the message names the file');

    const bundled = await runCli(['rules', 'test', '--json', 'rules']);
    assert.equal(bundled.code, 0, bundled.stderr);
    const bundledLines = lines(bundled.stdout).map((line) => JSON.parse(line) as JsonLine);
    const { by_logsource: _byLogsource, ...bundledTotals } = bundledLines.at(-1)!;
    assert.deepEqual(bundledTotals, {
      loaded: BUNDLED.detection + BUNDLED.correlation,
      reachable: BUNDLED.detection + BUNDLED.correlation,
      unreachable: 0,
      ...BUNDLED,
      filters: 0,
      rejected: 0,
    });
    assert.ok(bundledLines.slice(0, -1).every((line) => line.status === 'loaded'));
  });

  test('a rule whose logsource no parsed input produces is reported unreachable, in text and JSON', async () => {
    const dir = tempDir('sightline-rules-');
    fs.writeFileSync(
      path.join(dir, 'router.yml'),
      [
        'title: Router Command',
        'id: 55555555-5555-4555-8555-555555555555',
        'logsource:',
        '  product: acme_router',
        '  service: cli',
        'detection:',
        '  selection:',
        "    command: 'erase startup-config'",
        '  condition: selection',
        '',
      ].join('\n'),
    );
    fs.writeFileSync(
      path.join(dir, 'good.yml'),
      sigmaRule(
        'Good Rule',
        '11111111-1111-4111-8111-111111111111',
        "  selection:\n    message: 'x'\n  condition: selection",
      ),
    );
    const text = await runCli(['rules', 'test', dir]);
    assert.equal(text.code, 0, 'unreachable is a warning, not a failure');
    assert.match(
      text.stdout,
      new RegExp(
        `^unreachable ${dir}/router\\.yml {2}55555555-5555-4555-8555-555555555555 {2}Router Command {2}\\[product:acme_router service:cli\\]$`,
        'm',
      ),
    );
    assert.match(lines(text.stdout).at(-1)!, /^total: 2 loaded \(1 reachable, 1 unreachable; /);
    const json = await runCli(['rules', 'test', '--json', dir]);
    const parsed = lines(json.stdout).map((line) => JSON.parse(line) as JsonLine);
    assert.equal(parsed.find((line) => line.id?.startsWith('5555'))?.status, 'unreachable');
    const totals = parsed.at(-1)!;
    assert.equal(totals.unreachable, 1);
    assert.deepEqual(totals.by_logsource, {
      '/application/': { loaded: 1, unreachable: 0 },
      'acme_router//cli': { loaded: 1, unreachable: 1 },
    });
  });

  test('a path that does not exist is rejected with a clear message and exit 1', async () => {
    const missing = path.join(tempDir('sightline-rules-'), 'no-such-rules');
    const result = await runCli(['rules', 'test', missing]);
    assert.equal(result.code, 1);
    assert.deepEqual(lines(result.stdout), [
      `rejected  ${missing}: no such file or directory`,
      'total: 0 loaded (0 reachable, 0 unreachable; 0 detection, 0 correlation, 0 filters applied), 1 rejected',
    ]);
    const json = await runCli(['rules', 'test', '--json', missing]);
    assert.equal(json.code, 1);
    assert.deepEqual(JSON.parse(lines(json.stdout)[0]!), {
      status: 'rejected',
      file: missing,
      construct: 'path',
      message: `${missing}: no such file or directory`,
    });
    // Alongside a good path, the missing one still fails the run.
    const mixed = await runCli(['rules', 'test', ruleDir + '/good.yml', missing]);
    assert.equal(mixed.code, 1);
    assert.match(mixed.stdout, /^total: 1 loaded .* 1 rejected$/m);
  });
});
