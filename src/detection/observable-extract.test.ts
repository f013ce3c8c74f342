// Observables read from events as normalisation leaves them, for records written after the
// vendors' documented formats: an nginx access record, a Sysmon process creation (NXLog), a
// Sysmon DNS query, a CloudTrail call, an Okta System Log event, a Windows failed logon; and
// from an external observation's fields. Each value once, normalised, bounded.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { normalise } from '../telemetry/normalise/test-normalise.js';
import { observablesOfEvent, observablesOfFields } from './observable-extract.js';
import { OBSERVABLE_LIMITS } from './observable-values.js';

const pairs = (items: { type: string; value: string }[]) => items.map((item) => `${item.type} ${item.value}`);

function sysmon(data: Record<string, unknown>): Record<string, unknown> {
  return {
    EventTime: '2026-11-22 10:15:00',
    Hostname: 'WS-042',
    SourceName: 'Microsoft-Windows-Sysmon',
    Channel: 'Microsoft-Windows-Sysmon/Operational',
    Computer: 'WS-042',
    UtcTime: '2026-11-22 10:15:00.000',
    ...data,
  };
}

test('nginx: the client address, the proxies it came through, the referring URL and its domain', () => {
  const event = normalise({
    time_local: '22/Nov/2026:10:15:00 +0000',
    source: 'nginx',
    hostname: 'web-1',
    remote_addr: '203.0.113.44',
    remote_user: '-',
    request: 'GET /products.php?id=1%27%20UNION%20ALL%20SELECT%20username,password%20FROM%20users--%20- HTTP/1.1',
    status: '200',
    body_bytes_sent: 5120,
    http_referer: 'https://Shop.Example.com/list?page=2',
    http_user_agent: 'sqlmap/1.8',
    http_x_forwarded_for: '198.51.100.23, 10.0.0.5',
  });
  const found = observablesOfEvent(event);
  assert.deepEqual(pairs(found), [
    'ip 203.0.113.44',
    'ip 198.51.100.23',
    'ip 10.0.0.5',
    'url https://shop.example.com/list?page=2',
    'domain shop.example.com',
  ]);
  assert.deepEqual(found.find((item) => item.value === '10.0.0.5')?.tags, ['internal']);
});

test('Sysmon process creation: image, command line, user, parent image and the hashes (not the import hash)', () => {
  const event = normalise(
    sysmon({
      EventID: 1,
      ProcessId: '4242',
      Image: 'C:\\Windows\\System32\\WindowsPowerShell\\v1.0\\powershell.exe',
      CommandLine: 'powershell.exe -nop -enc SQBFAFgA',
      User: 'CORP\\bob',
      Hashes:
        'SHA1=3A1F5A0C6E6E1B53D2C8F4B6A0F7E4D5C3B2A190,MD5=5D41402ABC4B2A76B9719D911017C592,SHA256=9F914D42706FE215501044ACD85A32D58AAEF1419D404FDDFA5D3B48F66CCD9F,IMPHASH=00112233445566778899AABBCCDDEEFF',
      ParentProcessId: '4100',
      ParentImage: 'C:\\Program Files\\Microsoft Office\\root\\Office16\\WINWORD.EXE',
      ParentCommandLine: '"C:\\Program Files\\Microsoft Office\\root\\Office16\\WINWORD.EXE" /n invoice.docm',
    }),
  );
  assert.deepEqual(pairs(observablesOfEvent(event)), [
    'process_path c:\\windows\\system32\\windowspowershell\\v1.0\\powershell.exe',
    'command_line powershell.exe -nop -enc SQBFAFgA',
    'user corp\\bob',
    'process_path c:\\program files\\microsoft office\\root\\office16\\winword.exe',
    'sha1 3a1f5a0c6e6e1b53d2c8f4b6a0f7e4d5c3b2a190',
    'md5 5d41402abc4b2a76b9719d911017c592',
    'sha256 9f914d42706fe215501044acd85a32d58aaef1419d404fddfa5d3b48f66ccd9f',
  ]);
});

test('Sysmon DNS query: the name asked for, and the process that asked', () => {
  const event = normalise(
    sysmon({
      EventID: 22,
      ProcessId: '5120',
      QueryName: 'Update.Evil-Example.net',
      QueryStatus: '0',
      QueryResults: '::ffff:198.51.100.7;',
      Image: 'C:\\Users\\bob\\AppData\\Local\\Temp\\upd.exe',
      User: 'NT AUTHORITY\\SYSTEM',
    }),
  );
  assert.deepEqual(pairs(observablesOfEvent(event)), [
    'domain update.evil-example.net',
    'process_path c:\\users\\bob\\appdata\\local\\temp\\upd.exe',
  ]);
});

test('CloudTrail: the caller address and user name', () => {
  const event = normalise({
    eventVersion: '1.09',
    userIdentity: {
      type: 'IAMUser',
      principalId: 'AIDAJ45Q7YFFAREXAMPLE',
      arn: 'arn:aws:iam::123456789012:user/alice',
      accountId: '123456789012',
      userName: 'alice',
    },
    eventTime: '2026-11-22T10:15:00Z',
    eventSource: 'iam.amazonaws.com',
    eventName: 'CreateAccessKey',
    awsRegion: 'us-east-1',
    sourceIPAddress: '198.51.100.23',
    userAgent: 'aws-cli/2.15.0',
  });
  assert.deepEqual(pairs(observablesOfEvent(event)), ['ip 198.51.100.23', 'user alice']);
});

test('Okta System Log: the client address and the actor, an email address', () => {
  const event = normalise({
    uuid: 'f1e2d3c4-b5a6-11ee-9c8d-7e6f5a4b3c2d',
    published: '2026-11-22T10:15:00.000Z',
    eventType: 'user.session.start',
    version: '0',
    severity: 'INFO',
    actor: { id: '00u1a2b3c4d5e6f7g8h9', type: 'User', alternateId: 'Admin@Example.com', displayName: 'Admin' },
    client: { ipAddress: '198.51.100.23', userAgent: { rawUserAgent: 'Mozilla/5.0' } },
    outcome: { result: 'FAILURE' },
  });
  assert.deepEqual(pairs(observablesOfEvent(event)), ['ip 198.51.100.23', 'email admin@example.com']);
});

test('Windows 4625 (failed logon): the source address and the account', () => {
  const event = normalise({
    EventID: 4625,
    SourceName: 'Microsoft-Windows-Security-Auditing',
    Channel: 'Security',
    Hostname: 'DC-01',
    Computer: 'DC-01',
    EventTime: '2026-11-22 10:15:00',
    TargetUserName: 'Administrator',
    TargetDomainName: 'CORP',
    LogonType: '3',
    IpAddress: '198.51.100.77',
    IpPort: '51234',
    WorkstationName: '-',
  });
  assert.deepEqual(pairs(observablesOfEvent(event)), ['ip 198.51.100.77', 'user administrator']);
});

test('external fields: the known names are read, others ignored; at most the bound per observation', () => {
  assert.deepEqual(
    pairs(
      observablesOfFields({
        DestinationIp: '198.51.100.9',
        'file.hash.sha256': 'AB'.repeat(32),
        note: 'see 203.0.113.1',
      }),
    ),
    ['ip 198.51.100.9', `sha256 ${'ab'.repeat(32)}`],
  );
  const many = observablesOfFields({ sourceIPs: Array.from({ length: 100 }, (_, i) => `198.51.100.${i}`) });
  assert.equal(many.length, 16, 'the first values of a list');
  const forwarded = observablesOfFields({
    'c-forwarded-for': Array.from({ length: 16 }, (_, i) =>
      Array.from({ length: 4 }, (_, j) => `10.${i}.${j}.1`).join(','),
    ),
  });
  assert.equal(forwarded.length, OBSERVABLE_LIMITS.perObservation);
});
