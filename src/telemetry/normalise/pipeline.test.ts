// The processing pipeline file: the bundled one loads from where src/ and dist/ both find it,
// and a bad file is refused with an error naming the file and the key.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { DEFAULT_PIPELINE_FILE, loadPipeline, parsePipeline, PipelineError } from './index.js';

const BUNDLED = fs.readFileSync(DEFAULT_PIPELINE_FILE, 'utf8');

test('the bundled pipeline is config/detection-pipeline.yml at the project root, and is valid', () => {
  const root = fileURLToPath(new URL('../../../', import.meta.url));
  assert.equal(DEFAULT_PIPELINE_FILE, path.join(root, 'config', 'detection-pipeline.yml'));
  assert.ok(
    fs.existsSync(path.join(root, 'package.json')),
    'three levels up from src/telemetry/normalise is the project root',
  );
  const pipeline = loadPipeline();
  assert.equal(pipeline.file, DEFAULT_PIPELINE_FILE);
  assert.deepEqual(pipeline.placeholders.admin_users, ['root', 'admin', 'administrator', 'Administrator']);
  assert.ok(pipeline.placeholders.internal_networks?.includes('10.0.0.0/8'));
  assert.deepEqual(pipeline.syslog.programs.sshd, ['sshd', 'auth']);
  const userAgent = pipeline.webserver.fields.find((mapping) => mapping.target === 'cs-user-agent');
  const cUserAgent = pipeline.webserver.fields.find((mapping) => mapping.target === 'c-useragent');
  assert.deepEqual(cUserAgent?.sources, userAgent?.sources, 'both user-agent names are fed from one list');
});

/** The bundled file with one line replaced: the rest stays valid, so the error is about that line. */
function edited(from: string | RegExp, to: string): string {
  const text = BUNDLED.replace(from, to);
  assert.notEqual(text, BUNDLED, `the edit ${String(from)} applies`);
  return text;
}

function refusal(text: string): PipelineError {
  try {
    parsePipeline(text, '/etc/sightline/pipeline.yml');
  } catch (error) {
    assert.ok(error instanceof PipelineError, String(error));
    assert.match(error.message, /\/etc\/sightline\/pipeline\.yml/);
    return error;
  }
  assert.fail('the pipeline was accepted');
}

test('validation names the key: wrong types, unknown keys, missing sections and required targets', () => {
  const cases: [string, string][] = [
    [edited('version: 1', 'version: 2'), 'version'],
    [edited(/^host_fields: .*$/m, 'host_fields: hostname'), 'host_fields'],
    [edited(/^host_fields: .*$/m, 'host_fields: [hostname, 7]'), 'host_fields[1]'],
    [edited('  request_line: [request, request_line]', '  request_lines: [request]'), 'webserver.request_lines'],
    [edited('    sshd: [sshd, auth]', '    sshd: sshd'), 'syslog.programs.sshd'],
    [edited('    sshd: [sshd, auth]', '    sshd: []'), 'syslog.programs.sshd'],
    [edited('    cron: [cron]', '    CRON: [cron]\n    cron: [cron]'), 'syslog.programs.cron'],
    [edited(/^ {4}program: \[.*$/m, ''), 'syslog.fields.program'],
    [edited(/^ {2}admin_users: .*$/m, '  admin users: [root]'), 'placeholders.admin users'],
    [edited(/^ {2}admin_users: .*$/m, '  admin_users: [root, {name: admin}]'), 'placeholders.admin_users[1]'],
    [edited(/^aliases:\n(?: {2}.*\n)+/m, ''), 'aliases'],
    [edited('webserver:\n', 'webserver:\n  colour: blue\n'), 'webserver.colour'],
    [`${BUNDLED}\nextra: true\n`, 'extra'],
  ];
  for (const [text, key] of cases) {
    const error = refusal(text);
    assert.equal(error.key, key, error.message);
    assert.ok(error.message.includes(`${key}: `), error.message);
  }
});

test('YAML syntax errors and unreadable files name the file', () => {
  assert.match(refusal('version: [1\n').message, /not valid YAML/);
  assert.match(refusal('- a list\n').message, /must be a mapping/);
  const missing = path.join(os.tmpdir(), `sightline-no-such-pipeline-${process.pid}.yml`);
  assert.throws(
    () => loadPipeline(missing),
    (error: unknown) =>
      error instanceof PipelineError && error.message.includes(missing) && error.message.includes('ENOENT'),
  );
});

test('placeholders accept numbers as text', () => {
  const pipeline = parsePipeline(
    edited(/^ {2}admin_users: .*$/m, '  admin_users: [root]\n  ssh_ports: [22, 2222]'),
    'p.yml',
  );
  assert.deepEqual(pipeline.placeholders.ssh_ports, ['22', '2222']);
});
