// Linux auditd: a Laurel combined event and single flat records (EXECVE, SYSCALL, others),
// checked for family, logsources, Sysmon-style fields, host and the process row.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { EVENT_TIME, normalise } from './test-normalise.js';

test('Laurel EXECVE event: Image, CommandLine, parent, cwd; raw auditd fields and the record types stay', () => {
  const event = normalise({
    ID: '1763806500.123:4711',
    NODE: 'db-primary',
    SYSCALL: {
      arch: '0xc000003e',
      syscall: 59,
      success: 'yes',
      exit: 0,
      items: 2,
      ppid: 2100,
      pid: 2171,
      auid: 1000,
      uid: 1000,
      gid: 1000,
      euid: 1000,
      tty: 'pts0',
      ses: 3,
      comm: 'curl',
      exe: '/usr/bin/curl',
      key: null,
      ARCH: 'x86_64',
      SYSCALL: 'execve',
      AUID: 'alice',
      UID: 'alice',
    },
    EXECVE: { argc: 4, ARGV: ['curl', '-o', '/tmp/x', 'http://198.51.100.7/x'] },
    CWD: { cwd: '/home/alice' },
    PATH: [
      { item: 0, name: '/usr/bin/curl', nametype: 'NORMAL' },
      { item: 1, name: '/lib64/ld-linux-x86-64.so.2', nametype: 'NORMAL' },
    ],
    PROCTITLE: { ARGV: ['curl', '-o', '/tmp/x', 'http://198.51.100.7/x'] },
    PARENT_INFO: { ID: '1763806400.001:4600', comm: 'bash', exe: '/usr/bin/bash', ppid: 2000 },
  });
  assert.equal(event.family, 'process');
  assert.deepEqual(event.logsources, [
    { category: 'process_creation' },
    { category: 'process_creation', product: 'linux' },
    { product: 'linux', service: 'auditd' },
  ]);
  assert.equal(event.fields.Image, '/usr/bin/curl');
  assert.equal(event.fields.CommandLine, 'curl -o /tmp/x http://198.51.100.7/x');
  assert.equal(event.fields.User, 'alice');
  assert.equal(event.fields.CurrentDirectory, '/home/alice');
  assert.equal(event.fields.ParentImage, '/usr/bin/bash');
  assert.equal(event.fields.a1, '-o');
  assert.equal(event.fields.exe, '/usr/bin/curl');
  assert.equal(event.fields.auid, 1000);
  assert.deepEqual(event.fields.type, ['SYSCALL', 'EXECVE', 'CWD', 'PATH', 'PROCTITLE']);
  assert.deepEqual(event.fields['PATH.name'], ['/usr/bin/curl', '/lib64/ld-linux-x86-64.so.2']);
  assert.equal(event.host, 'db-primary');
  assert.equal(event.keywords, 'curl -o /tmp/x http://198.51.100.7/x');
  assert.deepEqual(event.process, {
    host: 'db-primary',
    endpoint_id: null,
    user: 'alice',
    process_name: 'curl',
    pid: 2171,
    parent_process_name: 'bash',
    parent_pid: 2100,
    executable_path: '/usr/bin/curl',
    parent_executable_path: '/usr/bin/bash',
    command_line: 'curl -o /tmp/x http://198.51.100.7/x',
    parent_command_line: null,
    time: EVENT_TIME,
    source_format: 'auditd',
  });
});

function flatAudit(type: string, fields: Record<string, unknown>): Record<string, unknown> {
  return { type, msg: 'audit(1763806500.123:4711):', node: 'db-primary', ...fields };
}

test('flat EXECVE with hex-encoded arguments: decoded into aN and CommandLine; no exe or pid on this record', () => {
  // a2 holds a space, so auditd wrote it as hex; "2D6F" ("-o" would not need encoding) stays text.
  const event = normalise(
    flatAudit('EXECVE', { argc: 4, a0: 'sh', a1: '-c', a2: '6375726C202D73206874747073', a3: '2D6F' }),
  );
  assert.equal(event.family, 'process');
  assert.equal(event.logsources[2]?.service, 'auditd');
  assert.equal(event.fields.a2, 'curl -s https');
  assert.equal(event.fields.a3, '2D6F');
  assert.equal(event.fields.type, 'EXECVE');
  assert.equal(event.fields.CommandLine, 'sh -c curl -s https 2D6F');
  assert.equal(event.fields.Image, undefined);
  assert.equal(event.host, 'db-primary');
  assert.equal(event.process?.process_name, 'sh');
  assert.equal(event.process.pid, null);
});

test('flat SYSCALL execve (by number on x86_64, or by name): Image, pid, ppid, user; no arguments', () => {
  const record = flatAudit('SYSCALL', {
    arch: 'c000003e',
    syscall: '59',
    success: 'yes',
    exit: '0',
    ppid: '2100',
    pid: '2171',
    auid: '1000',
    uid: '0',
    comm: '"id"',
    exe: '"/usr/bin/id"',
    key: '"exec"',
  });
  const event = normalise(record);
  assert.equal(event.family, 'process');
  assert.equal(event.fields.Image, '/usr/bin/id', 'quotes kept by the converter are removed');
  assert.equal(event.fields.User, '0');
  assert.equal(event.fields.CommandLine, undefined);
  assert.equal(event.process?.pid, 2171);
  assert.equal(event.process.parent_pid, 2100);
  assert.equal(normalise({ ...record, syscall: 'execve', arch: undefined }).family, 'process');
  assert.equal(normalise({ ...record, syscall: '2' }).family, 'other', 'open(2) is not an exec');
  assert.equal(normalise({ ...record, arch: 'c00000b7', syscall: '221' }).family, 'process', 'execve on aarch64');
});

test('other audit record types: family other with the auditd logsource', () => {
  const event = normalise(
    flatAudit('USER_LOGIN', {
      pid: 812,
      uid: 0,
      auid: 1000,
      ses: 4,
      acct: 'alice',
      addr: '203.0.113.50',
      res: 'failed',
    }),
  );
  assert.equal(event.family, 'other');
  assert.deepEqual(event.logsources, [{ product: 'linux', service: 'auditd' }]);
  assert.equal(event.fields.acct, 'alice');
  const title = normalise(flatAudit('PROCTITLE', { proctitle: '7368002D630069640A' }));
  assert.equal(title.fields.proctitle, 'sh -c id\n');
});
